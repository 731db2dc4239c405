from __future__ import annotations

from django import forms


class LookUpForm(forms.Form):
    """The short code as typed; passports/code_form.html draws its input for a phone."""

    code = forms.CharField(
        label="Short code",
        help_text="8 to 12 letters and numbers, as on the passport: for example 7KXM4-QHT2W.",
        max_length=40,
        error_messages={
            "required": "Enter the passport's short code.",
            "max_length": "A short code has 8 to 12 letters and numbers: check what you typed.",
        },
    )
