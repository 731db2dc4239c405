from django import forms


class SignInForm(forms.Form):
    username = forms.CharField(
        label="Username or e-mail address",
        max_length=254,
        widget=forms.TextInput(
            attrs={"autocomplete": "username", "autocapitalize": "none", "spellcheck": "false"}
        ),
        error_messages={"required": "Enter your username or e-mail address."},
    )
    password = forms.CharField(
        label="Password",
        max_length=256,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        error_messages={"required": "Enter your password."},
    )
