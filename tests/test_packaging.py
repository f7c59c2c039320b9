"""The shipped rules, kept in the repository's top-level rules/ folder, are found by a wheel
installed outside the checkout and by the checkout itself (the editable install)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

from eqsat.rules import library_paths

CHECKOUT = Path(__file__).resolve().parents[1]
SHIPPED = sorted(path.name for path in (CHECKOUT / "rules").glob("*.rules"))


def test_the_checkout_reads_its_rules_folder() -> None:
    assert len(SHIPPED) == 5
    assert [path.name for path in library_paths()] == SHIPPED
    assert all(path.parent == CHECKOUT / "rules" for path in library_paths())


def test_a_wheel_carries_the_rules(tmp_path: Path) -> None:
    """Built from the checkout, installed into a fresh environment whose only other path is
    this one's dependencies (site-packages, not the .pth that makes eqsat editable), and run
    from a folder outside the checkout."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path / "dist"), str(CHECKOUT)], check=True)
    wheel = next((tmp_path / "dist").glob("eqsat-*.whl"))
    fresh = tmp_path / "fresh"
    venv.create(fresh, with_pip=False)
    python = fresh / "bin" / "python"
    site = Path(subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path("
                                "'purelib'))"], check=True, capture_output=True,
                               text=True).stdout.strip())
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    "--target", str(site), str(wheel)], check=True)
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    done = subprocess.run(
        [python, "-c", "import eqsat; from eqsat.rules import library_paths; "
         "print(eqsat.__file__); print(*library_paths(), sep='\\n'); "
         "print(eqsat.simplify('log(exp(x)) + tan(x)*cos(x)'))"],
        cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    module, *rules, answer = done.stdout.splitlines()
    assert Path(module).is_relative_to(site)
    assert [Path(path).name for path in rules] == SHIPPED
    assert all(Path(path).is_relative_to(site / "eqsat" / "library") for path in rules)
    assert answer == "sin(x) + x"
