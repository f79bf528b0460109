"""The committed fixtures are exactly what their author scripts produce, for each fixture area:
tests/fixtures/*.json (tests/fixtures/_author.py and authors/), tests/fixtures/providers/*.json
(providers/_author.py) and tests/fixtures/stream/*.json (stream/_author.py). Re-running a script
into a temporary directory must reproduce every file of its folder byte for byte, so a fixture is
never edited by hand and never goes stale.

The template-rendered cases need the real chat templates: $BEACON_CHAT_TEMPLATES, or
../shared/chat-templates beside the repository (where CI has it). Without them this test fails.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"


def chat_templates() -> Path:
    configured = os.environ.get("BEACON_CHAT_TEMPLATES")
    folder = Path(configured) if configured else ROOT.parent / "shared" / "chat-templates"
    assert folder.is_dir(), (
        f"the chat templates are needed to re-render the fixtures, and {folder} is not a folder: "
        "set BEACON_CHAT_TEMPLATES to the folder of *.jinja templates, or put shared/chat-templates "
        "beside the repository"
    )
    assert any(folder.glob("*.jinja")), f"no *.jinja templates in {folder}"
    return folder


@pytest.mark.parametrize("area", ["", "providers", "stream"])
def test_authoring_reproduces_the_committed_fixtures(tmp_path, area):
    folder = FIXTURES / area if area else FIXTURES
    # Only the text formats' cases are rendered through chat templates.
    env = dict(os.environ, BEACON_CHAT_TEMPLATES=str(chat_templates())) if not area else None
    run = subprocess.run(
        [sys.executable, str(folder / "_author.py"), str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    script = (folder / "_author.py").relative_to(ROOT)
    assert run.returncode == 0, f"{script} failed:\n{run.stdout}\n{run.stderr}"

    committed = sorted(p.name for p in folder.glob("*.json"))
    written = sorted(p.name for p in tmp_path.glob("*.json"))
    assert written == committed, f"{script} writes other files than the committed ones"
    stale = [name for name in committed if (folder / name).read_bytes() != (tmp_path / name).read_bytes()]
    assert not stale, (
        f"committed fixtures differ from what {script} writes: {stale}; "
        f"regenerate with `python3 {script}` (and say why in the commit)"
    )
