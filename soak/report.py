"""The soak's report: printed as tables and written as JSON under var/soak/.

Recovery: for each fault, the time from its end until each kind of work it hits has succeeded
again (the first operation of that kind done after it, or for a batch its job done), the
longest of them; by kind of fault, their median and 95th percentile against the target.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import print_table
from soak.check import Checked
from soak.faults import FREEZE_SECONDS, Fault

RECOVERY_SECONDS = 30.0
TARGETS = {"service-freeze": FREEZE_SECONDS + 10.0}
WINDOW_GRACE_SECONDS = 5.0  # a request answered this soon after a fault's end was in it
OUTAGE_REMEMBERED = {"service-freeze": 10.0}  # the portal's ASSURANCE_OUTAGE_SECONDS
# The work each kind of fault hits, whose success again is its recovery.
HITS = {
    "postgres-restart": ("single", "lookup", "batch"),
    "redis-kill": ("single", "lookup", "batch"),
    "gunicorn-kill": ("single", "lookup"),
    "service-freeze": ("single", "lookup", "batch"),
    "worker-child-kill": ("batch",),
    "worker-kill": ("batch",),
    "worker-term": ("batch",),
    "beat-kill": ("batch",),
    # The receiver's own recovery is what the check counts (webhooks lost): the portal's work
    # that emits events goes on meanwhile.
    "webhook-receiver-kill": ("single",),
}


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def successes(operations: list[dict[str, Any]], checked: Checked) -> dict[str, list[float]]:
    """When each kind of work succeeded: an operation's answer, a batch's job done."""
    done: dict[str, list[float]] = {}
    for operation in operations:
        if operation["kind"] == "batch":
            finished = checked.finished.get(operation.get("told", {}).get("job"))
            if finished is not None:
                done.setdefault("batch", []).append(finished)
        elif operation["outcome"] == "done":
            done.setdefault(operation["kind"], []).append(operation["ended"])
    return {kind: sorted(times) for kind, times in done.items()}


def recovery(fault: Fault, done: dict[str, list[float]], next_fault: float) -> float | str:
    """Seconds from the fault's end until every kind of work it hits succeeded again; "never"
    if one never did, "overlapped" if the next fault began first (which then muddles it)."""
    waits = []
    for kind in HITS[fault.kind]:
        after = [t for t in done.get(kind, []) if t >= fault.ended]
        if not after:
            return "overlapped" if next_fault < math.inf else "never"
        waits.append(after[0] - fault.ended)
    return max(waits) if fault.ended + max(waits) <= next_fault else "overlapped"


def window_end(fault: Fault) -> float:
    """When a fault's effects end, as designed: a few seconds after it, and for the frozen
    service once the portal stops remembering its outage (ASSURANCE_OUTAGE_SECONDS)."""
    return fault.ended + WINDOW_GRACE_SECONDS + OUTAGE_REMEMBERED.get(fault.kind, 0)


def in_a_window(request: dict[str, Any], faults: list[Fault]) -> bool:
    return any(request["asked"] <= window_end(f) and request["answered"] >= f.started
               for f in faults)  # fmt: skip


def build(
    *, seed: int, minutes: float, operations: list[dict[str, Any]], faults: list[Fault],
    checked: Checked, requests: list[dict[str, Any]], memory: dict[str, dict[str, int]],
    peak_connections: int, crashed: list[tuple[float, str, int]],
) -> dict[str, Any]:  # fmt: skip
    done = successes(operations, checked)
    by_fault: dict[str, list[float | str]] = {}
    starts = [f.started for f in faults[1:]] + [math.inf]
    for fault, next_fault in zip(faults, starts, strict=True):
        by_fault.setdefault(fault.kind, []).append(recovery(fault, done, next_fault))
    recoveries = {}
    for kind, waits in sorted(by_fault.items()):
        measured = [w for w in waits if not isinstance(w, str)]
        target = TARGETS.get(kind, RECOVERY_SECONDS)
        never, overlapped = waits.count("never"), waits.count("overlapped")
        recoveries[kind] = {
            "faults": len(waits), "never_recovered": never, "overlapped": overlapped,
            "median": statistics.median(measured) if measured else None,
            "p95": p95(measured) if measured else None, "target": target,
            "met": not never and (not measured or p95(measured) <= target),
        }  # fmt: skip
    inside = sum(in_a_window(r, faults) for r in requests)
    outcomes = Counter((op["kind"], op["outcome"]) for op in operations)
    counts = checked.counts()
    report = {
        "seed": seed, "minutes": minutes,
        "operations": {f"{kind} {outcome}": n for (kind, outcome), n in sorted(outcomes.items())},
        "counts": counts,
        "service_extra": {"count": checked.service_extra.count,
                          "examples": checked.service_extra.examples},
        "findings": {name: getattr(checked, name).examples for name in counts},
        "failed_in_words": dict(checked.failed_in_words),
        "faults": [vars(f) for f in faults],
        "recovery": recoveries,
        "5xx": {"inside_fault_windows": inside, "outside_fault_windows": len(requests) - inside,
                "outside": [r for r in requests if not in_a_window(r, faults)][:20]},
        "worker_memory_kib": memory,
        "postgres_connections_peak": peak_connections,
        "webhooks": checked.webhooks,
        "ended_on_their_own": [{"at": at, "process": name, "status": status}
                               for at, name, status in crashed],
    }  # fmt: skip
    report["targets_met"] = (
        not any(counts.values()) and report["5xx"]["outside_fault_windows"] == 0
        and not crashed
        and all(r["met"] for r in recoveries.values())
        and len(faults) > 0
    )  # fmt: skip
    return report


def write(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, default=str))


def show(report: dict[str, Any]) -> None:
    print(f"\nSoak of {report['minutes']:g} minutes, seed {report['seed']}: "
          f"{len(report['faults'])} faults\n")  # fmt: skip
    print_table(["operations", "count"], [[k, str(n)] for k, n in report["operations"].items()])
    print()
    print_table(["check", "count", "target"],
                [[name, str(n), "0"] for name, n in report["counts"].items()]
                + [["passports at the service the portal never knew",
                    str(report["service_extra"]["count"]), "shown"],
                   ["5xx outside fault windows", str(report["5xx"]["outside_fault_windows"]),
                    "0"],
                   ["5xx inside fault windows", str(report["5xx"]["inside_fault_windows"]),
                    "shown"]])  # fmt: skip
    print()
    print_table(["recovery after", "faults", "overlapped", "median s", "p95 s", "target s",
                 "result"], [
        [kind, str(r["faults"]), str(r["overlapped"]), _seconds(r["median"]), _seconds(r["p95"]),
         f"{r['target']:.0f}", "PASS" if r["met"] else "MISS"]
        for kind, r in report["recovery"].items()
    ])  # fmt: skip
    print()
    memory = report["worker_memory_kib"]
    print_table(["worker", "start MiB", "end MiB"], [
        [name, f"{m['start'] / 1024:.0f}", f"{m['end'] / 1024:.0f}"] for name, m in memory.items()
    ])  # fmt: skip
    print(f"\nPostgreSQL connections at their peak: {report['postgres_connections_peak']}")
    hooks = report.get("webhooks") or {}
    print(
        f"Webhooks: {hooks.get('events', 0)} events for the receiver's endpoint, "
        f"{hooks.get('taken', 0)} deliveries it took (retries under the same id included)"
    )
    ended = report["ended_on_their_own"]
    print(f"Processes that ended on their own (started again, as systemd would): {len(ended)}"
          + "".join(f"\n  {e['process']} (exit status {e['status']})" for e in ended))  # fmt: skip
    for name, examples in report["findings"].items():
        for example in examples:
            print(f"  {name}: {example}")
    for words, n in report["failed_in_words"].items():
        print(f"  failed, saying why ({n}): {words}")
    print(f"\nTargets {'met' if report['targets_met'] else 'NOT met'}.")


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"
