"""Ready to publish: the release workflow, the package metadata, and the sdist.

- `.github/workflows/` passes actionlint (built by scripts/setup.sh into build/tools/go/bin;
  it runs shellcheck on the `run:` scripts), and release.yml builds what the README promises.
- pyproject.toml and bindings-wasm/js/package.json carry the metadata the registries show, and
  agree with the workspace's Cargo.toml (version, license, repository). No public repository
  exists yet, so none of them names one (no placeholder URLs), and the publishing jobs refuse to
  run until they do: their checks are run here against the metadata as it is.
- An sdist built here (`maturin sdist`) installs with pip into a fresh venv, offline, and works.
  pip compiles the crate for that (about a minute and a half; the Cargo target directory
  build/sdist-target is kept between runs).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path
from typing import Any, Dict

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
RELEASE = WORKFLOWS / "release.yml"
ACTIONLINT = ROOT / "build" / "tools" / "go" / "bin" / "actionlint"
SHELLCHECK = Path("/usr/bin/shellcheck")
WHEELHOUSE = ROOT / "build" / "wheelhouse"
SDIST_TARGET = ROOT / "build" / "sdist-target"
MATURIN = Path(sys.executable).parent / "maturin"

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CARGO = tomllib.loads((ROOT / "Cargo.toml").read_text(encoding="utf-8"))["workspace"]["package"]
PACKAGE_JSON = json.loads((ROOT / "bindings-wasm" / "js" / "package.json").read_text(encoding="utf-8"))
# None until a public repository exists (then Cargo.toml, pyproject.toml and package.json name it).
REPOSITORY = CARGO.get("repository")
# A repository the workflow could run in, for running its checks here.
RUNNING_IN = "https://github.com/beacon-example/beacon"


def workflow() -> Dict[str, Any]:
    doc = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as the boolean true.
    if True in doc:
        doc["on"] = doc.pop(True)
    return doc


def steps_text(job: Dict[str, Any]) -> str:
    return json.dumps(job["steps"])


# --------------------------------------------------------------------------- the workflow


def test_workflows_pass_actionlint() -> None:
    assert ACTIONLINT.is_file(), f"{ACTIONLINT} is missing: run `bash scripts/setup.sh`"
    assert SHELLCHECK.is_file(), f"{SHELLCHECK} is missing: run `bash scripts/setup.sh`"
    files = sorted(WORKFLOWS.glob("*.yml")) + sorted(WORKFLOWS.glob("*.yaml"))
    assert RELEASE in files
    proc = subprocess.run(
        [str(ACTIONLINT), "-no-color", "-shellcheck", str(SHELLCHECK), *map(str, files)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == ""


def test_actionlint_catches_a_mistake(tmp_path: Path) -> None:
    """The check is live: an undefined matrix property is reported."""
    bad = tmp_path / "bad.yml"
    bad.write_text(RELEASE.read_text(encoding="utf-8").replace("matrix.platform.smoke", "matrix.platform.smok"))
    proc = subprocess.run([str(ACTIONLINT), "-no-color", "-shellcheck=", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert 'property "smok" is not defined' in proc.stdout


def test_release_runs_on_version_tags_and_by_hand() -> None:
    on = workflow()["on"]
    assert on["push"] == {"tags": ["v*"]}
    assert "workflow_dispatch" in on
    assert workflow()["permissions"] == {"contents": "read"}


def test_release_builds_abi3_wheels_for_every_platform() -> None:
    job = workflow()["jobs"]["wheels"]
    platforms = {p["name"]: p for p in job["strategy"]["matrix"]["platform"]}
    assert set(platforms) == {
        "manylinux-x86_64",
        "manylinux-aarch64",
        "musllinux-x86_64",
        "musllinux-aarch64",
        "macos-x86_64",
        "macos-arm64",
        "windows-x64",
    }
    for name, p in platforms.items():
        if name.startswith("manylinux"):
            assert p["manylinux"] == "auto"
        if name.startswith("musllinux"):
            assert p["manylinux"].startswith("musllinux_")
        assert p["target"] in name.replace("arm64", "aarch64")
    build = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("PyO3/maturin-action@"))
    assert "--release" in build["with"]["args"] and "--locked" in build["with"]["args"]
    # One wheel per platform because the extension targets the stable ABI.
    bindings = tomllib.loads((ROOT / "bindings-python" / "Cargo.toml").read_text(encoding="utf-8"))
    pyo3 = bindings["target"]["cfg(not(target_family = \"wasm\"))"]["dependencies"]["pyo3"]
    assert "abi3-py310" in pyo3["features"]
    assert PYPROJECT["project"]["requires-python"] == ">=3.10"
    # The publishing job expects exactly that many wheels.
    publish = steps_text(workflow()["jobs"]["publish-pypi"])
    assert f"-eq {len(platforms)}" in publish


def test_release_builds_the_sdist_and_the_npm_package() -> None:
    jobs = workflow()["jobs"]
    sdist = [s for s in jobs["sdist"]["steps"] if str(s.get("uses", "")).startswith("PyO3/maturin-action@")]
    assert sdist and sdist[0]["with"]["command"] == "sdist"
    npm = steps_text(jobs["npm"])
    assert "bindings-wasm/build.sh build/pkg-web" in npm
    assert "npm pack" in npm


def test_release_publishes_only_from_a_tag_with_provenance() -> None:
    jobs = workflow()["jobs"]
    for name in ("publish-pypi", "publish-npm"):
        job = jobs[name]
        assert set(job["needs"]) == {"wheels", "sdist", "npm"}
        assert "refs/tags/v" in job["if"] and "github.event_name == 'push'" in job["if"]
        assert job["permissions"]["id-token"] == "write"
        assert job["environment"]["name"] in ("pypi", "npm")
    pypi = steps_text(jobs["publish-pypi"])
    assert '"command": "upload"' in pypi  # maturin upload, trusted publishing: no token
    assert "secrets." not in pypi
    publish = [s for s in jobs["publish-npm"]["steps"] if "npm publish" in s.get("run", "")]
    assert len(publish) == 1
    assert re.search(r"npm publish \S+ --provenance --access public", publish[0]["run"])
    assert publish[0]["env"] == {"NODE_AUTH_TOKEN": "${{ secrets.NPM_TOKEN }}"}


# --------------------------------------------------------------------------- metadata


def test_python_metadata() -> None:
    project = PYPROJECT["project"]
    assert project["name"] == "beacon-toolcall"
    assert project["readme"] == "README.md"
    assert project["license"] == CARGO["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"] and (ROOT / "LICENSE").is_file()
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert {"llm", "tool-calling", "function-calling", "parser"} <= set(project["keywords"])
    classifiers = project["classifiers"]
    assert "Typing :: Typed" in classifiers and "Programming Language :: Rust" in classifiers
    # PEP 639: the license is the SPDX expression; a license classifier alongside is an error
    # for some build tools.
    assert not [c for c in classifiers if c.startswith("License ::")]
    # Every CPython the abi3 wheel serves, from requires-python on.
    versions = sorted(int(c.rsplit(".", 1)[1]) for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert versions[0] == 10 and versions == list(range(10, versions[-1] + 1))
    urls = project.get("urls", {})
    assert not [u for u in urls.values() if "example.invalid" in u or "example.com" in u], urls
    if REPOSITORY is None:
        assert urls == {}, "pyproject.toml names URLs, but Cargo.toml names no repository"
        return
    assert set(urls) == {"Homepage", "Documentation", "Repository", "Issues"}
    assert urls["Repository"] == REPOSITORY
    assert all(u.startswith(REPOSITORY) for u in urls.values())


def test_npm_metadata() -> None:
    pkg = PACKAGE_JSON
    assert pkg["name"] == "beacon-toolcall"
    assert pkg["version"] == CARGO["version"]
    assert pkg["license"] == CARGO["license"]
    assert {"llm", "tool-call", "function-calling", "parser", "wasm"} <= set(pkg["keywords"])
    # The description is the registry page's first line: it names what the package reads.
    for word in ("Qwen3-Coder", "DeepSeek", "gpt-oss", "Kimi K2", "OpenAI", "Anthropic", "streamed", "WebAssembly"):
        assert word in pkg["description"], word
    if REPOSITORY is None:
        assert not {"repository", "homepage", "bugs"} & set(pkg), "package.json names URLs, but Cargo.toml names no repository"
        return
    assert pkg["repository"]["type"] == "git"
    # npm's provenance check compares this with the repository the workflow runs in.
    assert pkg["repository"]["url"] == f"git+{REPOSITORY}.git"
    assert pkg["homepage"].startswith(REPOSITORY)
    assert pkg["bugs"]["url"] == PYPROJECT["project"]["urls"]["Issues"]


def check_step(job: str, name_part: str) -> Dict[str, Any]:
    (step,) = [s for s in workflow()["jobs"][job]["steps"] if name_part in s.get("name", "")]
    assert step["env"]["EXPECTED"] == "${{ github.server_url }}/${{ github.repository }}"
    return step


def run_step(step: Dict[str, Any], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "EXPECTED": RUNNING_IN}
    return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def fake_sdist(dist: Path, urls: list) -> None:
    dist.mkdir(parents=True)
    info = dist / "PKG-INFO"
    head = ["Metadata-Version: 2.4", "Name: beacon-toolcall", f"Version: {CARGO['version']}"]
    info.write_text("\n".join(head + [f"Project-URL: {u}" for u in urls]) + "\n\n# beacon\n", encoding="utf-8")
    with tarfile.open(dist / f"beacon_toolcall-{CARGO['version']}.tar.gz", "w:gz") as tar:
        tar.add(info, arcname=f"beacon_toolcall-{CARGO['version']}/PKG-INFO")
    info.unlink()


def test_pypi_publishing_refuses_metadata_without_the_repository(tmp_path: Path) -> None:
    """The publish-pypi job's URL check, run on an sdist's metadata: it fails without a
    Project-URL naming the repository the workflow runs in (today's metadata has none)."""
    step = check_step("publish-pypi", "project URLs")
    names = [s.get("name", "") for s in workflow()["jobs"]["publish-pypi"]["steps"]]
    assert names.index(step["name"]) < next(i for i, n in enumerate(names) if n.startswith("Upload"))
    today = [f"{k}, {v}" for k, v in PYPROJECT["project"].get("urls", {}).items()]
    cases = {
        "today": (today, REPOSITORY == RUNNING_IN),
        "none": ([], False),
        "another": (["Repository, https://github.com/someone/else"], False),
        "this": ([f"Homepage, {RUNNING_IN}", f"Repository, {RUNNING_IN}"], True),
    }
    for name, (urls, ok) in cases.items():
        fake_sdist(tmp_path / name / "dist", urls)
        proc = run_step(step, tmp_path / name)
        assert (proc.returncode == 0) == ok, (name, proc.stdout, proc.stderr)
        if not ok:
            assert "::error::the package metadata lacks Project-URL" in proc.stdout


def test_npm_publishing_refuses_package_json_without_the_repository(tmp_path: Path) -> None:
    """The publish-npm job's repository check, run on package.json as it is (it fails: no
    repository) and on variants."""
    step = check_step("publish-npm", "repository")
    bare = {k: v for k, v in PACKAGE_JSON.items() if k not in ("repository", "homepage", "bugs")}
    cases = {
        "today": (PACKAGE_JSON, REPOSITORY == RUNNING_IN, "no repository URL" if REPOSITORY is None else "repository is"),
        "none": (bare, False, "no repository URL"),
        "another": ({**bare, "repository": {"type": "git", "url": "git+https://github.com/someone/else.git"}}, False, "repository is"),
        "this": ({**bare, "repository": {"type": "git", "url": f"git+{RUNNING_IN}.git"}}, True, ""),
    }
    for name, (pkg, ok, says) in cases.items():
        (tmp_path / name / "pkg").mkdir(parents=True)
        (tmp_path / name / "pkg" / "package.json").write_text(json.dumps(pkg), encoding="utf-8")
        proc = run_step(step, tmp_path / name)
        assert (proc.returncode == 0) == ok, (name, proc.stdout, proc.stderr)
        assert says in proc.stdout


# --------------------------------------------------------------------------- the sdist


@pytest.fixture(scope="module")
def sdist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sdist")
    subprocess.run([str(MATURIN), "sdist", "--out", str(out)], cwd=ROOT, check=True, capture_output=True, timeout=300)
    (path,) = out.glob("beacon_toolcall-*.tar.gz")
    return path


def test_sdist_contents(sdist: Path) -> None:
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for need in ("PKG-INFO", "pyproject.toml", "README.md", "LICENSE", "Cargo.toml", "Cargo.lock",
                 "core/src/lib.rs", "bindings-python/src/lib.rs", "python/beacon/__init__.py",
                 "python/beacon/py.typed", "python/beacon/_core.pyi"):
        assert need in names, f"the sdist lacks {need}"


def test_sdist_installs_into_a_fresh_venv(sdist: Path, tmp_path: Path) -> None:
    """pip builds the sdist (maturin from the local wheelhouse, crates from Cargo's cache: no
    network) into a fresh venv, where the API, the CLI and the metadata work."""
    wheels = list(WHEELHOUSE.glob("maturin-*.whl"))
    assert wheels, f"no maturin wheel in {WHEELHOUSE}: run `bash scripts/setup.sh`"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    env = {
        **os.environ,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(WHEELHOUSE),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "CARGO_NET_OFFLINE": "true",
        "CARGO_TARGET_DIR": str(SDIST_TARGET),
    }
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([str(py), "-m", "pip", "install", str(sdist)], env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]

    script = r"""
import json, sys, beacon
from importlib import metadata
call = beacon.parse_tool_call('Call: search(query="rust async", limit=5)')
meta = metadata.metadata("beacon-toolcall")
dist = metadata.distribution("beacon-toolcall")
wheel = dist.read_text("WHEEL")
print(json.dumps({
    "call": call,
    "file": beacon.__file__,
    "version": beacon.__version__,
    "license": meta.get("License-Expression"),
    "urls": meta.get_all("Project-URL"),
    "keywords": meta.get("Keywords"),
    "content_type": meta.get("Description-Content-Type"),
    "description": meta.get_payload() or meta.get("Description"),
    "tags": [l.split(": ", 1)[1] for l in wheel.splitlines() if l.startswith("Tag: ")],
}))
"""
    proc = subprocess.run([str(py), "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["call"] == {"name": "search", "arguments": {"query": "rust async", "limit": 5}}
    assert got["file"].startswith(str(venv)), "the venv's own install, not this checkout"
    assert got["version"] == CARGO["version"]
    assert got["license"] == "MIT"
    if REPOSITORY is None:
        assert not got["urls"], got["urls"]
    else:
        assert f"Repository, {REPOSITORY}" in got["urls"]
    assert "tool-calling" in got["keywords"]
    assert got["content_type"].startswith("text/markdown")
    assert got["description"].startswith("# beacon\n")
    assert len(got["tags"]) == 1 and re.fullmatch(r"cp310-abi3-\w+", got["tags"][0]), got["tags"]

    # The console script.
    proc = subprocess.run([str(venv / "bin" / "beacon"), "--all"], input='<tool_call>{"name": "f", "arguments": {}}</tool_call>',
                          env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [{"name": "f", "arguments": {}}]
