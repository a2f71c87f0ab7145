"""The container image and the systemd unit, tested on a machine without a container engine:
deploy/build.sh (the image's build stage) makes the binary the image ships; every library it needs
comes with Debian's slim image or a package in deploy/runtime-packages.txt (the runtime stage's
list); copied alone into an empty folder it starts, serves and answers its own health check without
loading anything from the Swift toolchain; compose.yaml and the Dockerfile name only real
settings; the systemd unit passes systemd-analyze and its security review."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest
import yaml

from conftest import _free_port

ROOT = Path(__file__).resolve().parents[3]
# What debian:bookworm-slim has without installing anything (and the Swift runtime needs).
SLIM = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}


def _missing_build_packages() -> list[str]:
    """Debian packages deploy/build.sh needs that this machine lacks: the static build links
    Foundation's networking, which links libcurl (without it the link fails on curl_global_init)."""
    missing = []
    if not any(Path(f"/usr/lib/{arch}-linux-gnu/libcurl.so").exists() for arch in ("x86_64", "aarch64")):
        missing.append("libcurl4-openssl-dev")
    if shutil.which("readelf") is None:
        missing.append("binutils")
    return missing


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    missing = _missing_build_packages()
    if missing:
        pytest.skip(f"the image's static build needs {', '.join(missing)}: apt-get install {' '.join(missing)} "
                    "(.ci/run installs them)")
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([str(ROOT / "deploy" / "build.sh"), str(out)], capture_output=True, text=True, timeout=3600,
                            cwd=ROOT)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
    assert (out / "latchkey").is_file()
    return out


def package_of(path: str) -> str:
    owner = subprocess.run(["dpkg", "-S", os.path.realpath(path)], capture_output=True, text=True)
    if owner.returncode != 0:  # usrmerge: dpkg knows /lib/… where the loader found /usr/lib/…
        owner = subprocess.run(["dpkg", "-S", os.path.realpath(path).removeprefix("/usr")], capture_output=True, text=True)
    assert owner.returncode == 0, f"no Debian package owns {path}"
    return owner.stdout.split(":")[0]


def test_the_runtime_stage_has_every_library_the_binary_needs(dist):
    binary = dist / "latchkey"
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", subprocess.run(
        ["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout)
    assert needed and not any(name.startswith("libswift") or "Foundation" in name for name in needed), needed
    ldd = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=True).stdout
    resolved = dict(re.findall(r"^\s*(\S+) => (\S+)", ldd, re.M))
    # The dynamic loader is listed by its path alone.
    resolved |= {os.path.basename(path): path for path in re.findall(r"^\s*(/\S+) \(", ldd, re.M)}
    assert all(name in resolved and resolved[name] != "not" for name in needed), resolved
    assert not any(path.startswith("/opt/swift") for path in resolved.values())
    packages = {package_of(resolved[name]) for name in needed}
    listed = set((ROOT / "deploy" / "runtime-packages.txt").read_text().split())
    assert packages <= SLIM | listed, f"not in the runtime stage: {packages - SLIM - listed}"


def test_the_binary_alone_starts_serves_and_checks_its_health(dist, tmp_path):
    app = tmp_path / "opt"
    shutil.copytree(dist, app)
    # Every resource bundle the binary looks for sits next to it (as in the image, where the
    # build folder it was made in does not exist).
    strings = subprocess.run(["strings", str(app / "latchkey")], capture_output=True, text=True, check=True).stdout
    bundles = set(re.findall(r"([A-Za-z0-9_]+\.resources)\b", strings))
    assert bundles and all((app / bundle).is_dir() for bundle in bundles), bundles
    port = _free_port()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LATCHKEY_DATA_DIR": str(tmp_path / "data"),
           "LATCHKEY_PORT": str(port), "LATCHKEY_HOST": "127.0.0.1"}
    log = open(tmp_path / "server.log", "w")
    server = subprocess.Popen([str(app / "latchkey"), "serve"], env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", trust_env=False).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise AssertionError((tmp_path / "server.log").read_text()[-3000:])
        assert httpx.get(f"http://127.0.0.1:{port}/settings", trust_env=False).status_code == 200
        # What the resource bundles hold: the API document, and the common passwords refused at sign-up.
        assert httpx.get(f"http://127.0.0.1:{port}/openapi.json", trust_env=False).json()["openapi"].startswith("3.")
        common = httpx.post(f"http://127.0.0.1:{port}/signup", json={"email": "deploy@example.com", "password": "yfdbufnjh10305070"},
                            trust_env=False)
        assert common.status_code == 422 and common.json()["weak_password"]["reasons"] == ["pwned"], common.text
        maps = Path(f"/proc/{server.pid}/maps").read_text()
        assert "/opt/swift" not in maps and str(ROOT) not in maps
        health = subprocess.run([str(app / "latchkey"), "health"], env=env, capture_output=True, text=True, timeout=30)
        assert health.returncode == 0 and "ok" in health.stdout, health.stdout + health.stderr
        down = subprocess.run([str(app / "latchkey"), "health"], env={**env, "LATCHKEY_PORT": str(_free_port())},
                              capture_output=True, text=True, timeout=30)
        assert down.returncode == 1
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


def documented_settings() -> set[str]:
    return set(re.findall(r"`((?:LATCHKEY|GOTRUE|API|DATABASE|PORT)[A-Z_]*)`", (ROOT / "docs" / "configuration.md").read_text()))


def test_compose_runs_two_stateless_instances_on_one_database():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    instances = [services["auth-1"], services["auth-2"]]
    known = documented_settings()
    for instance in instances:
        env = instance["environment"]
        assert instance["build"] == "."
        assert "volumes" not in instance  # stateless: everything lives in the database
        assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:" in env["DATABASE_URL"]
        assert "LATCHKEY_SERVER_SECRET" in env["LATCHKEY_SERVER_SECRET"]  # from the operator's environment, never a default
        assert env["GOTRUE_SMTP_HOST"] == "mail"
        assert set(env) <= known, set(env) - known
        assert instance["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert instances[0]["environment"] == instances[1]["environment"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert set(re.findall(r"\b(LATCHKEY_[A-Z_]+)=", dockerfile)) <= known
    assert "deploy/build.sh" in dockerfile and "runtime-packages.txt" in dockerfile and "USER latchkey" in dockerfile
    assert "HEALTHCHECK" in dockerfile and '"health"' in dockerfile
    example = dict(line.split("=", 1) for line in (ROOT / "deploy" / "latchkey.env").read_text().splitlines()
                   if line and not line.startswith("#"))
    assert set(example) <= known, set(example) - known


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_the_systemd_unit_is_valid_and_hardened(dist, tmp_path):
    unit = (ROOT / "deploy" / "latchkey.service").read_text()
    shutil.copy(ROOT / "deploy" / "latchkey.env", tmp_path / "latchkey.env")
    local = unit.replace("/opt/latchkey/latchkey", str(dist / "latchkey")).replace(
        "/etc/latchkey/latchkey.env", str(tmp_path / "latchkey.env"))
    (tmp_path / "latchkey.service").write_text(local)
    verify = subprocess.run(["systemd-analyze", "verify", str(tmp_path / "latchkey.service")], capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    review = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(tmp_path / "latchkey.service")],
                            capture_output=True, text=True)
    exposure = float(re.search(r"Overall exposure level for \S+: ([0-9.]+)", review.stdout).group(1))
    assert exposure <= 2.0, review.stdout[-2000:]
