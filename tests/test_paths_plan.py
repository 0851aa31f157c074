"""The plan's ECMP-collision risk line (fabricgen/plan/collisions.py)."""

from __future__ import annotations

import json

from fabricgen.plan.build import make_plan
from fabricgen.plan.collisions import RISK_DROP, collision_risk
from fabricgen.plan.inputs import record_path
from fabricgen.plan.model import Plan
from tests.conftest import INVENTORIES, load_fabric

BEFORE = INVENTORIES / "expansion" / "before"
AFTER = INVENTORIES / "expansion" / "after"


def test_expansion_that_raises_collision_loss_is_a_risk_line() -> None:
    old, new = load_fabric(BEFORE), load_fabric(AFTER)
    plan = make_plan(old, new, record_path(BEFORE), record_path(AFTER), configs=False, qos=False)
    assert plan.scaling is not None
    risk = plan.scaling["collisions"]
    # 2 → 4 units under the same spines: twice the leaves, so the worst-hashed uplink is worse
    assert risk["risk"] is True and risk["after"] < risk["before"] - RISK_DROP
    assert risk["message"] in plan.scaling["summary"]
    assert f"{risk['before']:.0%} → {risk['after']:.0%}" in risk["message"]
    again = Plan.from_dict(json.loads(json.dumps(plan.as_dict())))
    assert again.scaling is not None and again.scaling["collisions"] == risk


def test_no_change_is_no_risk() -> None:
    old = load_fabric(BEFORE)
    risk = collision_risk(old, old)
    assert risk is not None and risk["before"] == risk["after"] and risk["risk"] is False
    plan = make_plan(old, old, record_path(BEFORE), record_path(BEFORE), configs=False, qos=False)
    assert plan.scaling is not None and risk["message"] not in plan.scaling["summary"]
