"""The committed fixtures (tests/fixtures/*.json) are exactly what the authoring scripts
(tests/fixtures/_author.py and authors/) produce: re-running them into a temporary directory must
reproduce every file byte for byte, so a fixture is never edited by hand and never goes stale.

The template-rendered cases need the real chat templates: $BEACON_CHAT_TEMPLATES, or
../shared/chat-templates beside the repository (where CI has it). Without them this test fails.
"""

import os
import subprocess
import sys
from pathlib import Path

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


def test_authoring_reproduces_the_committed_fixtures(tmp_path):
    env = dict(os.environ, BEACON_CHAT_TEMPLATES=str(chat_templates()))
    run = subprocess.run(
        [sys.executable, str(FIXTURES / "_author.py"), str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, f"_author.py failed:\n{run.stdout}\n{run.stderr}"

    committed = sorted(p.name for p in FIXTURES.glob("*.json"))
    written = sorted(p.name for p in tmp_path.glob("*.json"))
    assert written == committed, "the authoring scripts write other files than the committed ones"
    stale = [name for name in committed if (FIXTURES / name).read_bytes() != (tmp_path / name).read_bytes()]
    assert not stale, (
        f"committed fixtures differ from what the authoring scripts write: {stale}; "
        "regenerate with `python3 tests/fixtures/_author.py` (and say why in the commit)"
    )
