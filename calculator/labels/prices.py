"""Prices and plans in the reader's words: how an offer is sold, how a price refresh ended, stale prices, hosted-API
providers, the adapters' words around an offer's name, and the planner's ways to serve and their limits."""

from __future__ import annotations

import re

from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from calculator.formatting import format_day, format_money
from pricing.offers import StaleOffers

from .choices import in_words

# How an offer is sold and how a provider's last price refresh ended, as pricing stores them (pricing/offers.py,
# PriceSnapshot.Outcome), in the reader's words.
PRICING_KINDS = {
    "on-demand": _("on demand"),
    "spot": _("spot (interruptible)"),
    "community": _("community cloud"),
    "reserved": _("reserved"),
}
REFRESH_OUTCOMES = {
    "success": _("new prices"),
    "unchanged": _("prices unchanged"),
    "empty": _("no offers returned"),
    "failed": _("failed"),
    "stale": _("no current prices"),
}


def pricing_kind_label(key: str) -> str:
    return in_words(PRICING_KINDS, key)


def refresh_outcome_label(key: str) -> str:
    return in_words(REFRESH_OUTCOMES, key)


PLAN_LIMITS = {
    "tpot": _("limited by the time per token"),
    "ttft": _("limited by the time to first token"),
    "memory": _("limited by the KV cache"),
    "sequences": _("limited by the engine's request limit"),
    "budget": _("limited by the tokens per step"),
}


# The planner's three ways to serve: as the subject of "… cost less than …", and as a chart legend
PLAN_KINDS = {
    "api": _("hosted APIs"),
    "rented": _("rented GPUs"),
    "owned": _("owned servers"),
}
PLAN_KIND_LEGENDS = {
    "api": _("API"),
    "rented": _("Rented GPUs"),
    "owned": _("Owned servers"),
}


# The GPU families a serving band is read for (calculator/validation/bands.py GPU_FAMILIES); the architectures keep
# their names, which are the same in every language
GPU_FAMILIES = {
    "Ampere": "Ampere",
    "Ada": "Ada Lovelace",
    "Hopper": "Hopper",
    "Blackwell": "Blackwell",
    "AMD Instinct": "AMD Instinct",
    "GeForce / Radeon": _("GeForce and Radeon cards"),
    "Apple": _("Apple silicon"),
    "other": _("other GPUs"),
}


def gpu_family_label(family: str) -> str:
    return in_words(GPU_FAMILIES, family)


def plan_kind_label(kind: str) -> str:
    return in_words(PLAN_KINDS, kind)


def plan_kind_legend(kind: str) -> str:
    return in_words(PLAN_KIND_LEGENDS, kind)


def plan_limit_label(limit: str) -> str:
    """What stops a replica from running more requests at once, in words."""
    return in_words(PLAN_LIMITS, limit)


def stale_text(stale: StaleOffers) -> str:
    """One sentence for the stale prices of a table (pricing.offers.stale_offers), said once instead of per row."""
    values: dict[str, int | str] = {"num": stale.count, "total": stale.total}
    if stale.first_seen and stale.last_seen and stale.first_seen != stale.last_seen:
        text = ngettext(
            "%(num)s of these %(total)s prices is stale: seen %(first)s to %(last)s, longer ago than we count as "
            "current or before a refresh that failed.",
            "%(num)s of these %(total)s prices are stale: seen %(first)s to %(last)s, longer ago than we count as "
            "current or before a refresh that failed.",
            stale.count,
        )
        values |= {"first": format_day(stale.first_seen), "last": format_day(stale.last_seen)}
    elif stale.first_seen:
        text = ngettext(
            "%(num)s of these %(total)s prices is stale: seen %(day)s, longer ago than we count as current or before "
            "a refresh that failed.",
            "%(num)s of these %(total)s prices are stale: seen %(day)s, longer ago than we count as current or before "
            "a refresh that failed.",
            stale.count,
        )
        values["day"] = format_day(stale.first_seen)
    else:
        text = ngettext(
            "%(num)s of these %(total)s prices is stale.", "%(num)s of these %(total)s prices are stale.", stale.count
        )
    return text % values


# Hosted-API providers as the price file names them (pricing/data/api-prices.json), in the reader's language; names
# alone ("AWS Bedrock us-east-1 (Meta Llama 3.3 70B)") stay as they are.
HOSTED_PROVIDERS: dict[str, Promise] = {
    "Z.ai (vendor list price)": _("Z.ai (vendor list price)"),
    "Z.ai (vendor list price, introductory offer)": _("Z.ai (vendor list price, introductory offer)"),
    "OpenRouter (list price = top provider)": _("OpenRouter (list price = top provider)"),
}
_OPENROUTER_ENDPOINT = "OpenRouter endpoint: "


def hosted_provider(text: str) -> str:
    """A hosted API's provider label in the reader's language."""
    if text in HOSTED_PROVIDERS:
        return str(HOSTED_PROVIDERS[text])
    if text.startswith(_OPENROUTER_ENDPOINT):
        return gettext("OpenRouter endpoint: %(name)s") % {"name": text[len(_OPENROUTER_ENDPOINT) :]}
    return text


# What price adapters write around an offer's name and region (pricing/providers), in the reader's language; the
# providers' product names ("Secure Cloud", "8x H100") stay as they are.
OFFER_PHRASES: dict[str, Promise] = {
    "global marketplace": _("global marketplace"),
    "global (community hosts)": _("global (community hosts)"),
    "global (secure cloud data centers)": _("global (secure cloud data centers)"),
    "global list price": _("global list price"),
    "global": _("global"),
    "marketplace": _("marketplace"),
    "(marketplace, on-demand)": _("(marketplace, on-demand)"),
    "(marketplace, interruptible/bid)": _("(marketplace, interruptible/bid)"),
    "(marketplace, per GPU)": _("(marketplace, per GPU)"),
    # the price snapshot's own words around a provider's SKU (pricing/data/snapshot): RunPod's interruptible pods,
    # and the note on Google Cloud's A100 SKUs
    "spot (interruptible) pod": _("spot (interruptible) pod"),
    "(A100 without '80GB' = 40GB)": _("(A100 without '80GB' = 40GB)"),
}
# Phrases replaced wherever they stand in an offer's name (the rest replace a whole name or region only).
_OFFER_PARTS = frozenset(phrase for phrase in OFFER_PHRASES if phrase.startswith("(") or " pod" in phrase)


# A provider's machine ids as the price adapters record them, said as a reader names them: "H100_SXM x8" (a GPU type
# and how many an instance holds), a billing SKU's part number before its product name ("B98415 Oracle Cloud …"),
# Google's "GPU SKU:" label around the quoted SKU name, and an instance's price in US notation ("instance $55.04/h").
_GPU_TIMES = re.compile(r"^(?P<gpu>[A-Z0-9][A-Za-z0-9_]*) x(?P<count>\d+)$")
_GPU_ID = re.compile(r"^[A-Z0-9]+(?:_[A-Z0-9]+)+$")
_PART_NUMBER = re.compile(r"^B\d{5,6} ")
_SKU_LABEL = re.compile(r"^GPU SKU(?P<note> \(.*?\))?: \"(?P<name>.*)\"$")
_INSTANCE_PRICE = re.compile(r"\b(?P<kind>instance|VM) \$(?P<usd>\d+(?:\.\d+)?)/h\b")
# Google Cloud's SKU descriptions: "[Commitment v1: ][Spot Preemptible ]<GPU>[ attached to Spot Preemptible VMs]
# [running] in <region>[ for N Year(s)]", said as the GPU, its terms and the region in the reader's language
_GOOGLE_SKU = re.compile(
    r"^(?P<commitment>Commitment v1: )?(?P<spot>Spot Preemptible )?(?P<gpu>.+?)"
    r"(?P<attached> attached to Spot Preemptible VMs)?(?: running)? in (?P<region>[A-Z][A-Za-z ]*?)"
    r"(?: for (?P<years>\d+) Years?)?$"
)
_GPU_SLICE = "(1 gpu slice)"


def offer_text(text: str) -> str:
    """An offer's name or region in the reader's words: the adapters' phrases in the reader's language, a provider's
    machine ids as names ("H100_SXM x8" → "8 × H100 SXM"), prices in the reader's notation; the providers' product
    names ("Secure Cloud", "p5.48xlarge") stay as they are."""
    if text in OFFER_PHRASES:
        return str(OFFER_PHRASES[text])
    text = _machine_words(text)
    for phrase in _OFFER_PARTS:
        if phrase in text:
            text = text.replace(phrase, str(OFFER_PHRASES[phrase]))
    return text


def _machine_words(text: str) -> str:
    if times := _GPU_TIMES.match(text):
        return f"{times['count']} × {times['gpu'].replace('_', ' ')}"
    if _GPU_ID.match(text):
        return text.replace("_", " ")
    text = _PART_NUMBER.sub("", text)
    if sku := _SKU_LABEL.match(text):
        text = f"{_google_sku(sku['name'])}{sku['note'] or ''}"
    return _INSTANCE_PRICE.sub(_instance_price, text)


def _google_sku(name: str) -> str:
    """Google's "Commitment v1: Nvidia L4 GPU running in Americas for 3 Years" → "Nvidia L4 GPU, 3-year commitment,
    Americas" (in the reader's language); a name of another shape stays as it is."""
    found = _GOOGLE_SKU.match(name)
    if found is None:
        return name
    parts = [found["gpu"].replace(_GPU_SLICE, str(gettext("(one GPU)")))]
    if found["spot"] or found["attached"]:
        parts.append(str(gettext("spot (preemptible)")))
    if found["commitment"] and found["years"]:
        years = int(found["years"])
        parts.append(ngettext("%(years)s-year commitment", "%(years)s-year commitment", years) % {"years": years})
    region = found["region"]
    parts.append(str(gettext("Americas")) if region == "Americas" else region)
    return ", ".join(parts)


def _instance_price(found: re.Match[str]) -> str:
    usd = float(found["usd"])
    price = format_money(usd, 2 if usd >= 1 else 4)  # cents, or the tenths of a cent a small instance is priced in
    if found["kind"] == "VM":
        return gettext("VM %(price)s an hour") % {"price": price}
    return gettext("instance %(price)s an hour") % {"price": price}
