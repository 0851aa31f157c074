"""A rollout from factory state on the real FRR lab: the leaves still call themselves ``localhost``.

The lab starts bare; every leaf is renamed ``localhost`` at its console (nothing is recorded in the inventory:
no serial, no chassis MAC). A spines-first apply of the whole inventory identifies each leaf by its LLDP
neighbours, then commits the canary spine1, whose post-commit LLDP check sees ``localhost`` on every leaf port:
accepted (those leaves were identified there by this rollout and are not configured yet), so spine1 is applied,
not rolled back, and the rollout goes on. On a NOS the leaf's committed configuration sets its hostname; FRR's
``hostname`` line does not set the Linux hostname (``show running-config`` shows the system's), so the test
renames each leaf when its wave starts, as such a NOS would. Every switch ends applied; the spines' re-checks after
the later waves pass whether a leaf still advertises ``localhost`` or already its name.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fabricgen.deploy.apply import ApplyOptions, apply
from fabricgen.deploy.intended import intended_configs
from fabricgen.deploy.ops import load_live, run_verify
from fabricgen.lab import lab as labmod
from tests.labkit import lab_inventory, lab_up, skip_module_without_lab

skip_module_without_lab()

FABRIC = "fgtest-green"
LEAVES = ("leaf1", "leaf2", "leaf3", "leaf4")


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lab_inventory(tmp_path_factory.mktemp("inv"), FABRIC)


@pytest.fixture(scope="module")
def lab(inventory: Path) -> Iterator[labmod.LabState]:
    yield from lab_up(inventory)


def _heard(lab: labmod.LabState, switch: str) -> dict[str, set[str]]:
    doc = json.loads(labmod.switch_exec(lab, switch, ["lldpcli", "-f", "json0", "show", "neighbors"]))
    out: dict[str, set[str]] = {}
    for lldp in doc.get("lldp", []):
        for i in lldp.get("interface", []):
            out.setdefault(i["name"], set()).update(n.get("value", "") for c in i.get("chassis", [])
                                                    for n in c.get("name", []))
    return out


def _names_heard(lab: labmod.LabState, switch: str) -> set[str]:
    return {n for names in _heard(lab, switch).values() for n in names}


def _rename(lab: labmod.LabState, switch: str, name: str) -> None:
    """The switch's hostname, and the system name its lldpd advertises (set at once: lldpd would otherwise pick
    the new hostname up only at its next update, after resolving it)."""
    labmod.switch_exec(lab, switch, ["hostname", name])
    labmod.switch_exec(lab, switch, ["lldpcli", "configure", "system", "hostname", name])


def _hear_only(lab: labmod.LabState, switch: str, names: set[str], bound: float = 30.0) -> None:
    """Wait until ``switch``'s lldpd hears exactly ``names``, asking every switch's lldpd to send now (a leaf hears
    the spines only when the spines send: lldpd's own interval is 30 s, the length of this wait)."""
    deadline = time.monotonic() + bound
    while _names_heard(lab, switch) != names:
        assert time.monotonic() < deadline, (switch, _heard(lab, switch), {
            leaf: labmod.switch_exec(lab, leaf, ["hostname"]).strip() for leaf in LEAVES})
        for sender in ("spine1", "spine2", *LEAVES):
            labmod.switch_exec(lab, sender, ["lldpcli", "update"])
        time.sleep(1.0)


def test_a_spines_first_rollout_with_factory_named_leaves_applies_the_canary_then_every_leaf(
    lab: labmod.LabState, inventory: Path, tmp_path: Path
) -> None:
    for leaf in LEAVES:
        _rename(lab, leaf, "localhost")
    _hear_only(lab, "spine1", {"localhost"})
    for switch in ("spine2", *LEAVES):  # every neighbour heard: what identification by LLDP placement reads
        _hear_only(lab, switch, {"localhost"} if switch == "spine2" else {"spine1", "spine2"})
    live = load_live(str(inventory))
    configs = intended_configs(live.fabric)
    started: list[list[str]] = []

    def wave_starts(i: int, wave: list[str]) -> None:  # the leaf's configuration names it, as a NOS applies it
        started.append(wave)
        for n in wave:
            if n in LEAVES:
                _rename(lab, n, n)

    report = apply(live.fabric, configs, live.targets,
                   ApplyOptions(revert_in=60, settle=30.0, canary=1, wave_size=2, workers=4, timeout=20),
                   tmp_path / "state", on_wave=wave_starts)
    outcomes = {n: (o.status, o.message) for n, o in report.outcomes.items()}
    assert report.waves[0] == ["spine1"] and started[:1] == [["spine1"]], outcomes
    assert outcomes["spine1"] == ("applied", ""), outcomes  # the canary passed, not rolled back
    assert report.by_status() == {"applied": ["spine1", "spine2", *LEAVES]}, outcomes
    for leaf in LEAVES:
        assert outcomes[leaf][1].startswith(f"identified as {leaf} although it calls itself localhost: its LLDP "
                                            f"neighbours place it as {leaf}"), outcomes[leaf]
    # and the fabric is what the report says: every session up, LLDP as cabled by name, once lldpd caught up
    _hear_only(lab, "spine1", set(LEAVES))
    deadline = time.monotonic() + 40
    while True:
        results = run_verify(live)
        bad = {n: [f"{c.subject}: {c.detail}" for c in r.value.failures] if r.value else r.error
               for n, r in results.by_device.items() if not (r.value and r.value.ok)}
        if not bad:
            break
        assert time.monotonic() < deadline, bad
        time.sleep(2.0)
