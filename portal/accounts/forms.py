from django import forms
from django.utils.translation import gettext_lazy as _

from portal.lib.forms import Form


class SignInForm(Form):
    username = forms.CharField(
        label=_("Username or e-mail address"),
        max_length=254,
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}
        ),
        error_messages={"required": _("Enter your username or e-mail address.")},
    )
    password = forms.CharField(
        label=_("Password"),
        max_length=256,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        error_messages={"required": _("Enter your password.")},
    )
