"""The model's common questions, answered from the same figures as the sections above, in the reader's language.

Built per request under the active language (``model_page`` runs inside the request), with the same number, money,
size and date formats as the page's own figures; the page, the FAQ page (and its JSON-LD), the Markdown twin and the
API print these texts as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from django.utils.translation import gettext, ngettext

from calculator.estimation import MAX_GPUS_PER_NODE, Mode, budget_bytes, nodes_needed, run_count
from calculator.formatting import format_day, format_gb, format_money, format_number, format_tokens
from calculator.labels import hosted_provider, requests_phrase
from calculator.plan_state import volume_words
from pricing.gpus import GpuSpec, gpu_by_slug

from .local import Local, MacVerdict
from .planner import PlanAnswer
from .setting import Setting
from .sizes import PrecisionCard


class FaqItem(NamedTuple):
    """One question and its answer: plain text (no markup), keyed for the page's ``data-faq`` and the API."""

    key: str
    question: str
    answer: str


@dataclass(frozen=True, slots=True)
class Faq:
    items: tuple[FaqItem, ...]
    smallest_mac: MacVerdict | None  # the smallest Mac that holds some precision or build, with which one

    def answer(self, key: str) -> str:
        return next(item.answer for item in self.items if item.key == key)


# the GPU types "how many GPUs" answers for, by their memory size (80, 48 and 24 GB), and the one it asks about: the
# question names the memory ("one H100 80GB"), which the SXM and PCIe parts share with one recorded runtime total
# (pricing/gpus.py FORMER_FAMILIES), so its answer holds for either though the SXM part is the one counted
COUNT_GPUS = ("h100-sxm", "l40s", "rtx-4090")
ASKED_GPU = "h100-sxm"


def faq_section(
    name: str,
    setting: Setting,
    needs: dict[tuple[Mode, str], int],
    local: Local,
    released: PrecisionCard,
    gpus: Sequence[GpuSpec],
    plan: PlanAnswer | None = None,
) -> Faq:
    """The questions in page order; ``needs`` holds the need of every mode and generic precision (the matrix),
    ``released`` inference at the precision the model ships in (which leads where it is not 16-bit), whose cheapest
    configuration answers "what is the cheapest GPU" whatever mode or precision the page is set to."""
    figures = _figures(setting, needs, released, gpus)
    name = name or gettext("this model")
    smallest_mac = next((m for m in local.macs if m.verdict != "no"), None)
    return Faq(
        items=(
            FaqItem("vram", gettext("How much VRAM does %(name)s need?") % {"name": name}, _vram(figures)),
            FaqItem("cheapest", gettext("What is the cheapest GPU for %(name)s?") % {"name": name}, _cheapest(figures)),
            FaqItem(
                "finetune", gettext("Can I fine-tune %(name)s on a single GPU?") % {"name": name}, _finetune(figures)
            ),
            FaqItem("h100", gettext("Does %(name)s fit on one H100 80GB?") % {"name": name}, _h100(figures)),
            FaqItem("count", gettext("How many GPUs do I need for %(name)s?") % {"name": name}, _count(figures)),
            FaqItem("mac", gettext("Does %(name)s run on a Mac?") % {"name": name}, _mac_answer(smallest_mac)),
            _precision_item(figures),
            *([_serve_item(name, plan)] if plan is not None else []),
            _engine_item(),
        ),
        smallest_mac=smallest_mac,
    )


@dataclass(frozen=True, slots=True)
class _Figures:
    """What the answers read: the needs of inference at each generic precision and of each way to fine-tune, the
    release's card, the setting's engine, context and requests in words, and the GPU types asked about."""

    engine: str
    fp16: int
    int8: int
    int4: int
    lora: int
    qlora: int
    full: int
    released: PrecisionCard
    usable_80: int  # what one H100 80GB offers the engine
    context: str
    requests: str
    count_gpus: tuple[GpuSpec, ...]  # the GPU types "how many GPUs" answers for

    @property
    def narrower_release(self) -> bool:
        """Released at a narrower precision than 16 bits: the answers lead with it."""
        return self.released.precision != "fp16"


def _figures(
    setting: Setting, needs: dict[tuple[Mode, str], int], released: PrecisionCard, gpus: Sequence[GpuSpec]
) -> _Figures:
    by_slug = {g.slug: g for g in gpus}
    asked = by_slug.get(ASKED_GPU) or gpu_by_slug(ASKED_GPU)
    assert asked is not None, "the GPU catalog has the H100"
    return _Figures(
        engine=setting.engine,
        fp16=needs[(Mode.INFERENCE, "fp16")],
        int8=needs[(Mode.INFERENCE, "int8")],
        int4=needs[(Mode.INFERENCE, "int4")],
        lora=needs[(Mode.LORA, "fp16")],
        qlora=needs[(Mode.QLORA, "int4")],
        full=needs[(Mode.FULL, "fp16")],
        released=released,
        usable_80=budget_bytes(asked, setting.engine),
        context=format_tokens(setting.context),
        requests=requests_phrase(setting.concurrency),
        count_gpus=tuple(by_slug[slug] for slug in COUNT_GPUS if slug in by_slug),
    )


def _vram(f: _Figures) -> str:
    vram = gettext(
        "About %(fp16)s at FP16, %(int8)s at INT8 and %(int4)s at INT4, with %(context)s tokens of context and "
        "%(requests)s. Longer context and more parallel requests add KV cache on top."
    ) % {
        "fp16": format_gb(f.fp16),
        "int8": format_gb(f.int8),
        "int4": format_gb(f.int4),
        "context": f.context,
        "requests": f.requests,
    }
    if not f.narrower_release:
        return vram
    released_need = gettext("About %(need)s at %(precision)s, the precision it is released in.") % {
        "need": format_gb(f.released.need_bytes),
        "precision": f.released.label,
    }
    return f"{released_need} {vram}"


def _cheapest(f: _Figures) -> str:
    cheapest = f.released.cheapest
    if cheapest is None:
        return gettext("No offer we know of holds it on one node of 8 GPUs at these settings.")
    answer = gettext(
        "At %(precision)s as released: %(count)s × %(gpu)s at %(provider)s, for about %(hour)s per hour "
        "(%(month)s per month around the clock), with %(context)s tokens of context and %(requests)s."
    ) % {
        "precision": f.released.label,
        "count": cheapest.instance_gpus,  # the GPUs billed: the price is the instance's
        "gpu": cheapest.gpu_name,
        "provider": cheapest.provider_name,
        "hour": format_money(cheapest.per_hour_rounded),
        "month": format_money(cheapest.per_month_rounded, 0),
        "context": f.context,
        "requests": f.requests,
    }
    if not cheapest.offer.captured_at:
        return answer
    seen = gettext("Price seen %(date)s; prices change often.") % {"date": format_day(cheapest.offer.captured_at)}
    return f"{answer} {seen}"


def _finetune(f: _Figures) -> str:
    if f.qlora <= f.usable_80:
        qlora = gettext("Yes, with QLoRA: about %(qlora)s fits one 80 GB GPU.") % {"qlora": format_gb(f.qlora)}
    else:
        qlora = gettext("Not on one 80 GB GPU: even QLoRA needs about %(qlora)s.") % {"qlora": format_gb(f.qlora)}
    others = gettext("LoRA needs about %(lora)s, full fine-tuning about %(full)s.") % {
        "lora": format_gb(f.lora),
        "full": format_gb(f.full),
    }
    return f"{qlora} {others}"


def _h100(f: _Figures) -> str:
    released = f.released
    if f.fp16 <= f.usable_80:
        return gettext("Yes, even at FP16 (about %(need)s).") % {"need": format_gb(f.fp16)}
    if f.narrower_release and released.need_bytes <= f.usable_80:
        return gettext("Yes, at %(precision)s as released (about %(need)s).") % {
            "precision": released.label,
            "need": format_gb(released.need_bytes),
        }
    if f.int4 <= f.usable_80 and f.narrower_release:
        return gettext("At INT4, yes (about %(need)s); at %(precision)s as released it needs about %(released)s.") % {
            "need": format_gb(f.int4),
            "precision": released.label,
            "released": format_gb(released.need_bytes),
        }
    if f.int4 <= f.usable_80:
        return gettext("At INT4, yes (about %(need)s); at FP16 it needs about %(fp16)s.") % {
            "need": format_gb(f.int4),
            "fp16": format_gb(f.fp16),
        }
    return gettext("No. Even at INT4 it needs about %(need)s, so you need several GPUs.") % {"need": format_gb(f.int4)}


def _count(f: _Figures) -> str:
    """Counted at the precision the model is released in (FP16 for a 16-bit release), as an engine runs them: whole
    nodes of 8 beyond one, said so."""
    counts = ", ".join(
        _gpus_of(run_count(f.released.need_bytes, gpu, f.engine, f.released.per_gpu_bytes), gpu.memory_gb)
        for gpu in f.count_gpus
    )
    setting_words = {"context": f.context, "requests": f.requests, "precision": f.released.label}
    lead = (
        gettext("At %(precision)s as released, with %(context)s tokens of context and %(requests)s:")
        if f.narrower_release
        else gettext("At FP16 with %(context)s tokens of context and %(requests)s:")
    )
    return f"{lead % setting_words} {counts}."


def _gpus_of(count: int, memory_gb: float) -> str:
    """ "5 × 80 GB", or "16 × 80 GB on 2 nodes" beyond one node of 8."""
    gpus = gettext("%(count)s × %(size)s GB") % {"count": count, "size": f"{memory_gb:g}"}
    if count <= MAX_GPUS_PER_NODE:
        return gpus
    nodes = nodes_needed(count)
    return ngettext("%(gpus)s on %(num)s node", "%(gpus)s on %(num)s nodes", nodes) % {"gpus": gpus, "num": nodes}


def _precision_item(f: _Figures) -> FaqItem:
    return FaqItem(
        "precision",
        gettext("FP16, INT8 or INT4: which should I choose?"),
        gettext(
            "FP16 keeps full quality and needs the most memory (about %(fp16)s here). INT8 halves the weights "
            "with little loss for most chat tasks. INT4 (AWQ, GPTQ or GGUF Q4) shrinks them to a quarter, "
            "about %(int4)s in total, with a small loss that shows mostly in maths and code."
        )
        % {"fp16": format_gb(f.fp16), "int4": format_gb(f.int4)},
    )


def _engine_item() -> FaqItem:
    return FaqItem(
        "engine",
        gettext("vLLM or llama.cpp?"),
        gettext(
            "vLLM is built to serve many requests at once on NVIDIA and AMD GPUs and reserves most of the GPU "
            "memory for its KV cache. llama.cpp runs GGUF files on almost anything, Macs and CPUs included, "
            "and suits one person or a small team. At the same precision the memory need is similar; choose "
            "the engine in the calculator to see the difference."
        ),
    )


def _serve_item(name: str, plan: PlanAnswer) -> FaqItem:
    """The planner's answer for a billion output tokens a month, in words."""
    demand = plan.demand
    question = gettext("How much does it cost to serve %(name)s at %(volume)s output tokens a month?") % {
        "name": name,
        "volume": volume_words(demand.output_tokens_per_month),
    }
    setting = gettext(
        "With %(ratio)s input tokens per output token (%(cached)s %% from a prefix cache), the first token within "
        "%(ttft)s s and %(tpot)s ms per token:"
    ) % {
        "ratio": format_number(demand.input_per_output, 1),
        "cached": round(demand.cached_share * 100),
        "ttft": format_number(demand.ttft_target_s, 0),
        "tpot": round(demand.tpot_target_s * 1000),
    }
    parts = [setting]
    api, rented = plan.best("api"), plan.best("rented")
    if api is not None and api.hosted is not None:
        api_cost = gettext("the %(provider)s API costs about %(month)s a month;") % {
            "provider": hosted_provider(api.hosted.provider),
            "month": format_money(api.served.monthly_usd, 0),
        }
        if api.hosted.confidence == "low":  # a price we could not confirm is said to be one
            api_cost = gettext("the %(provider)s API costs about %(month)s a month (price not confirmed);") % {
                "provider": hosted_provider(api.hosted.provider),
                "month": format_money(api.served.monthly_usd, 0),
            }
        parts.append(api_cost)
    if rented is not None and rented.offer is not None:
        parts.append(
            gettext("%(replicas)s × %(gpus)s × %(gpu)s at %(provider)s about %(month)s a month.")
            % {
                "replicas": rented.served.replicas,
                "gpus": rented.offer.ranked.instance_gpus,
                "gpu": rented.offer.ranked.gpu_name,
                "provider": rented.offer.ranked.provider_name,
                "month": format_money(rented.served.monthly_usd, 0),
            }
        )
    owned = plan.best("owned")
    if owned is not None and owned.owned is not None:
        parts.append(
            gettext("Owning %(servers)s × %(server)s costs about %(month)s a month (server price estimated).")
            % {
                "servers": owned.served.replicas,
                "server": owned.owned.server.name,
                "month": format_money(owned.served.monthly_usd, 0),
            }
        )
    if api is None and rented is None:
        parts.append(gettext("no API price or rented instance we know of serves it within these targets."))
    parts.append(gettext("The planner shows every option and where the answer changes with the volume."))
    return FaqItem("serve", question, " ".join(parts))


def _mac_answer(mac: MacVerdict | None) -> str:
    if mac is None:
        return gettext("Not on any Mac we list (up to 512 GB of unified memory).")
    figures = {"gib": mac.ram_gib, "build": mac.best, "need": format_gb(mac.best_need_bytes)}
    if mac.verdict == "raise":
        return gettext(
            "Yes, with enough memory: the smallest Mac it fits is one with %(gib)s GB of unified memory, at "
            "%(build)s (about %(need)s), once a sysctl line raises the GPU memory limit from the %(default)s macOS "
            "allows by default to %(limit)s MB."
        ) % {**figures, "limit": mac.wired_limit_mb, "default": format_gb(mac.default_limit_bytes)}
    return (
        gettext(
            "Yes, with enough memory: the smallest Mac it fits is one with %(gib)s GB of unified memory, at %(build)s "
            "(about %(need)s)."
        )
        % figures
    )
