"""FRR platform: frr.conf passes vtysh --dryrun and is exactly what FRR 8.4 prints back."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import require

VTYSH = shutil.which("vtysh") or "/usr/bin/vtysh"


def vtysh_dryrun(tmp_path: Path, text: str) -> None:
    """Assert that ``vtysh --dryrun -f`` accepts ``text`` (skip without FRR, except under CI)."""
    require(Path(VTYSH).exists(), "vtysh not found: apt-get install frr")
    conf = tmp_path / "frr.conf"
    conf.write_text(text)
    proc = subprocess.run([VTYSH, "--dryrun", "-f", str(conf)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"vtysh --dryrun failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
    assert "Unknown command" not in proc.stdout + proc.stderr
