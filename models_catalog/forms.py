"""Forms: what a reader may send to the catalog pages."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from models_catalog.hub_ids import HubId, InvalidHubId, parse_hub_id
from models_catalog.selectors import MACHINE_FITS, MOE_CHOICES, SIZE_BANDS, SORTS, WEIGHT_FITS

# A page number past this is no page a reader reaches by following links (a million models at 100 a page).
MAX_PAGE = 10_000


class CatalogQueryForm(forms.Form):
    """The catalog list's query string; anything invalid falls back to the default."""

    q = forms.CharField(required=False, max_length=200, strip=True)
    family = forms.CharField(required=False, max_length=64)
    attention = forms.CharField(required=False, max_length=32)
    modality = forms.CharField(required=False, max_length=16)
    licence = forms.CharField(required=False, max_length=64)
    size = forms.ChoiceField(required=False, choices=[(k, k) for k in SIZE_BANDS])
    moe = forms.ChoiceField(required=False, choices=[(k, k) for k in MOE_CHOICES])
    fits = forms.ChoiceField(required=False, choices=[(k, k) for k in WEIGHT_FITS])
    machine = forms.ChoiceField(required=False, choices=[(k, k) for k in MACHINE_FITS])
    sort = forms.ChoiceField(required=False, choices=[(k, k) for k in SORTS])
    page = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)

    DEFAULTS: dict[str, str | int] = {
        "q": "",
        "family": "",
        "attention": "",
        "modality": "",
        "licence": "",
        "size": "",
        "moe": "",
        "fits": "",
        "machine": "",
        "sort": "name",
        "page": 1,
    }

    def values(self) -> dict[str, str | int]:
        if not self.is_valid():
            cleaned = {k: v for k, v in self.cleaned_data.items() if k not in self.errors}
            return {**self.DEFAULTS, **{k: v for k, v in cleaned.items() if v}}
        return {**self.DEFAULTS, **{k: v for k, v in self.cleaned_data.items() if v}}

    def filters(self) -> dict[str, str]:
        """The filters and sort that a page link carries, defaults left out (the page number is added per link)."""
        values = self.values()
        return {k: str(v) for k, v in values.items() if k != "page" and v != self.DEFAULTS[k]}


class SuggestQueryForm(forms.Form):
    q = forms.CharField(required=False, max_length=200, strip=True)

    def text(self) -> str:
        return self.cleaned_data.get("q", "") if self.is_valid() else ""


class HubIdForm(forms.Form):
    hub_id = forms.CharField(max_length=200, strip=True, label=_("Hugging Face model id"))

    def clean_hub_id(self) -> HubId:
        try:
            return parse_hub_id(self.cleaned_data["hub_id"])
        except InvalidHubId as exc:
            raise forms.ValidationError(str(exc)) from exc
