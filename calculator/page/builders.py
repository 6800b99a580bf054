"""Each section's builder: what the section shows, from the parts of one page (``PageWork``) it reads. The records
in ``sections`` name them; the section modules (``sizes``, ``gpus``, ``context``, …) hold the types and the work."""

from __future__ import annotations

from calculator.estimation import Mode
from calculator.estimation.memory.fit import per_gpu_overhead_bytes
from calculator.page.accuracy import accuracy_notes
from calculator.page.inputs import precision_label
from calculator.page.plan_kept import faq_plan

from .commands import Commands, commands_section
from .context import ContextSection, context_section
from .faq import Faq, faq_section
from .glance import Fit, glance, own_machine
from .gpus import Gpus, largest_datacenter_gpu
from .hosted import SelfHostVsApi, hosted_section
from .inverse import Inverse, inverse_section
from .local import Local, Rig, rig_section
from .setting import MATRIX_PRECISIONS, MODES
from .sizes import (
    BreakdownRow,
    BuildRow,
    MatrixCell,
    ModeCard,
    ModeCards,
    PrecisionCards,
    Summary,
)
from .sizes import build_rows as published_build_rows
from .work import PageWork

Matrix = tuple[tuple[str, tuple[MatrixCell, ...]], ...]


def build_summary(work: PageWork) -> Summary:
    largest = largest_datacenter_gpu(work.startable_gpus)  # the "no" card's note: the largest GPU it starts on
    smallest_mode = Mode.INFERENCE
    smallest_label, smallest_need = work.local.options[0]
    if work.setting.mode is not Mode.INFERENCE:  # the smallest way to fine-tune, never an inference figure
        training = [(need, mode, p) for (mode, p), need in work.needs.items() if mode is not Mode.INFERENCE]
        smallest_need, smallest_mode, precision = min(training, key=lambda t: (t[0], MODES.index(t[1])))
        smallest_label = precision_label(precision)
    cheapest = work.gpus.ranking.cheapest
    engine, per_gpu = work.setting.engine, per_gpu_overhead_bytes(work.breakdown)
    at_a_glance = glance(
        work.need,
        engine,
        per_gpu,
        work.inputs.gpus,
        work.startable_gpus,
        own_machine(work.state, work.inputs.gpus),
        (cheapest.gpu_name, cheapest.instance_gpus) if cheapest else None,
    )
    return Summary(
        need_bytes=work.need,
        smallest_need_bytes=smallest_need,
        smallest_label=smallest_label,
        smallest_mode=smallest_mode,
        cheapest=cheapest,
        # the card and the glance read one verdict: one GPU the engine starts on holds the need within its budget
        fits_one_gpu=at_a_glance.verdict is Fit.RUNS,
        largest_gpu_name=largest.short_name if largest else "",
        smallest_gpu_name=at_a_glance.verdict_gpu if at_a_glance.verdict is Fit.RUNS else "",
        accuracy=accuracy_notes(work.setting.mode, engine, str(work.workload.framework), work.spec),
        glance=at_a_glance,
    )


def build_rows(work: PageWork) -> tuple[BreakdownRow, ...]:
    gpu_total = sum(t.bytes for t in work.breakdown.terms if t.on_gpu and t.bytes > 0) or 1
    rows, offset = [], 0.0
    for term in work.breakdown.terms:
        if term.bytes > 0:
            share = term.bytes / gpu_total if term.on_gpu else 0.0
            rows.append(BreakdownRow(term, share, offset))
            offset += share
    return tuple(rows)


def build_gpus(work: PageWork) -> Gpus:
    return work.gpus


def build_commands(work: PageWork) -> Commands:
    cheapest = work.gpus.by_gpu[0] if work.gpus.by_gpu else None
    return commands_section(work.inputs, work.setting, cheapest, work.local)


def build_matrix(work: PageWork) -> Matrix:
    return tuple(
        (precision, tuple(MatrixCell(mode, precision, work.needs.get((mode, precision))) for mode in MODES))
        for precision in MATRIX_PRECISIONS
    )


def build_precision_cards(work: PageWork) -> PrecisionCards:
    card = work.precision_card
    return PrecisionCards(fp16=card("fp16"), int8=card("int8"), int4=card("int4"), released=work.released)


def build_mode_cards(work: PageWork) -> ModeCards:
    inference_fp16 = work.needs[(Mode.INFERENCE, "fp16")]

    def card(mode: Mode, precision: str) -> ModeCard:
        need = work.needs[(mode, precision)]
        per_gpu = per_gpu_overhead_bytes(work.estimates.need(work.estimates.workload(work.state, mode, precision))[0])
        return ModeCard(mode, precision, need, need / inference_fp16, work.cheapest(need, per_gpu))

    return ModeCards(
        inference=card(Mode.INFERENCE, "fp16"),
        lora=card(Mode.LORA, "fp16"),
        qlora=card(Mode.QLORA, "int4"),
        full=card(Mode.FULL, "fp16"),
    )


def build_builds(work: PageWork) -> tuple[BuildRow, ...]:
    return published_build_rows(work.estimates, work.state, work.builds, work.inputs.gpus)


def build_context(work: PageWork) -> ContextSection:
    return context_section(work.estimates, work.state, work.setting, work.spec, work.inputs.gpus)


def build_inverse(work: PageWork) -> Inverse | None:
    return inverse_section(work.estimates, work.state, work.spec, work.inputs.gpus)


def build_local(work: PageWork) -> Local:
    return work.local


def build_rig(work: PageWork) -> Rig | None:
    return rig_section(work.inputs)


def build_api(work: PageWork) -> SelfHostVsApi:
    return hosted_section(work.inputs, faq_plan(work.inputs))


def build_faq(work: PageWork) -> Faq:
    inputs = work.inputs
    return faq_section(
        inputs.display_name, work.setting, work.needs, work.local, work.released, work.startable_gpus, faq_plan(inputs)
    )
