"""The base of every form of the portal's pages (Django's admin aside): a label says what is
asked whole ("Name", "Claim 1: on"), with no colon after it, as each page's own labels and
legends are written; Django's forms would add one where a page renders a field whole."""

from __future__ import annotations

from typing import Any

from django import forms


class Form(forms.Form):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)


class ModelForm(forms.ModelForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
