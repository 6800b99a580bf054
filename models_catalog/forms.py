"""Forms: what a reader may send to the catalog pages."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from models_catalog.hub_ids import HubId, InvalidHubId, parse_hub_id
from models_catalog.selectors import SORTS


class CatalogQueryForm(forms.Form):
    """The catalog list's query string; anything invalid falls back to the default."""

    q = forms.CharField(required=False, max_length=200, strip=True)
    family = forms.CharField(required=False, max_length=64)
    attention = forms.CharField(required=False, max_length=32)
    modality = forms.CharField(required=False, max_length=16)
    sort = forms.ChoiceField(required=False, choices=[(k, k) for k in SORTS])

    def values(self) -> dict[str, str]:
        defaults = {"q": "", "family": "", "attention": "", "modality": "", "sort": "name"}
        if not self.is_valid():
            cleaned = {k: v for k, v in self.cleaned_data.items() if k not in self.errors}
            return {**defaults, **{k: v for k, v in cleaned.items() if v}}
        return {**defaults, **{k: v for k, v in self.cleaned_data.items() if v}}


class HubIdForm(forms.Form):
    hub_id = forms.CharField(max_length=200, strip=True, label=_("Hugging Face model id"))

    def clean_hub_id(self) -> HubId:
        try:
            return parse_hub_id(self.cleaned_data["hub_id"])
        except InvalidHubId as exc:
            raise forms.ValidationError(str(exc)) from exc
