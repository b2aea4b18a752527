#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The Debian package as a user gets it: scripts/package builds it from this build, lintian finds no errors, the
desktop file and the AppStream metadata validate, it holds what README's "Install the package" section lists,
and the programs extracted from it (dpkg-deb -x) answer --version and run a 2-rank job end to end."""

import fnmatch
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ["RM_SOURCE_DIR"])
BUILD = Path(os.environ["RM_BUILD_DIR"])
APP_ID = os.environ["RM_APP_ID"]
PROGRAMS = ["ringmaster", "ringmaster-agent", "ringmaster-worker", "ringmaster-gui"]
TOOLS = ["lintian", "desktop-file-validate", "appstreamcli", "dpkg-deb", "readelf", "cpack"]


def run(command: list, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in command], capture_output=True, text=True, **kwargs)


def readme_contents() -> list[str]:
    """The file patterns in README's "Install the package" section, one a line in the block after "holds:"."""
    text = (SOURCE / "README.md").read_text()
    section = text.split("## Install the package", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"holds:\n+```\n(.*?)```", section, re.S)
    assert block, "README's Install the package section has no ``` block of the package's files after 'holds:'"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.split("#", 1)[0].strip()]


class DebianPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [tool for tool in TOOLS if shutil.which(tool) is None]
        if missing:
            raise unittest.SkipTest(f"missing {' '.join(missing)}: run scripts/install-deps")
        cls.tmp = Path(tempfile.mkdtemp(prefix="rm-package-"))
        made = run([SOURCE / "scripts" / "package", cls.tmp / "out"], env={**os.environ, "RINGMASTER_BUILD_DIR": str(BUILD)})
        if made.returncode != 0:
            raise AssertionError(f"scripts/package failed:\n{made.stdout}\n{made.stderr}")
        cls.arch = run(["dpkg", "--print-architecture"]).stdout.strip()
        debs = sorted((cls.tmp / "out").glob("*.deb"))
        ddebs = sorted((cls.tmp / "out").glob("*.ddeb"))
        assert len(debs) == 1 and len(ddebs) == 1, f"expected one .deb and one .ddeb, got {debs + ddebs}"
        cls.deb, cls.ddeb = debs[0], ddebs[0]
        cls.root = cls.tmp / "root"
        cls.dbg_root = cls.tmp / "dbgsym"
        for package, folder in ((cls.deb, cls.root), (cls.ddeb, cls.dbg_root)):
            extracted = run(["dpkg-deb", "-x", package, folder])
            assert extracted.returncode == 0, extracted.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def field(self, package: Path, name: str) -> str:
        return run(["dpkg-deb", "-f", package, name]).stdout.strip()

    def test_file_names_follow_debian(self):
        version = self.field(self.deb, "Version")
        self.assertRegex(version, r"^\d+\.\d+\.\d+-\d+$")
        self.assertEqual(self.deb.name, f"ringmaster_{version}_{self.arch}.deb")
        self.assertEqual(self.ddeb.name, f"ringmaster-dbgsym_{version}_{self.arch}.ddeb")
        self.assertEqual(self.field(self.ddeb, "Package"), "ringmaster-dbgsym")
        self.assertIn(f"ringmaster (= {version})", self.field(self.ddeb, "Depends"))

    def test_depends_on_libraries_and_python(self):
        depends = [d.strip().split(" ")[0] for d in self.field(self.deb, "Depends").split(",")]
        for package in ["libc6", "libqt6widgets6", "python3"]:
            self.assertIn(package, depends)
        # The Python package runs in users' own environments: the standard library and torch only.
        for package in ["python3-grpcio", "python3-protobuf"]:
            self.assertNotIn(package, depends)
        self.assertTrue(any(d.startswith("libtorch") for d in depends), depends)
        self.assertIn("python3-torch", self.field(self.deb, "Recommends"))
        self.assertIn("slurm-client", self.field(self.deb, "Suggests"))

    def test_lintian_finds_no_errors(self):
        result = run(["lintian", "--fail-on", "error", "--tag-display-limit", "0", self.deb])
        errors = [line for line in result.stdout.splitlines() if line.startswith("E:")]
        self.assertEqual(errors, [], result.stdout)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        print("\nlintian:\n" + (result.stdout or "(nothing)"), file=sys.stderr)

    def test_desktop_file_and_appstream_metadata_validate(self):
        desktop = self.root / "usr/share/applications" / f"{APP_ID}.desktop"
        result = run(["desktop-file-validate", desktop])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertNotIn("error", result.stdout + result.stderr)
        metainfo = self.root / "usr/share/metainfo" / f"{APP_ID}.metainfo.xml"
        result = run(["appstreamcli", "validate", "--no-net", "--no-color", metainfo])
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_contents_are_what_readme_lists(self):
        listed = run(["dpkg-deb", "-c", self.deb]).stdout.splitlines()
        files = [line.split()[5].lstrip(".") for line in listed if not line.startswith("d")]
        patterns = readme_contents()
        unlisted = [f for f in files if not any(fnmatch.fnmatchcase(f, p) for p in patterns)]
        self.assertEqual(unlisted, [], "files in the package that README does not list")
        absent = [p for p in patterns if not any(fnmatch.fnmatchcase(f, p) for f in files)]
        self.assertEqual(absent, [], "README lists files the package does not hold")

    def test_programs_are_stripped_and_their_debug_information_is_in_dbgsym(self):
        for program in PROGRAMS:
            path = self.root / "usr/bin" / program
            sections = run(["readelf", "--section-headers", "--wide", path]).stdout
            self.assertNotIn(".debug_info", sections, program)
            notes = run(["readelf", "--notes", path]).stdout
            build_id = re.search(r"Build ID: ([0-9a-f]+)", notes)
            self.assertIsNotNone(build_id, program)
            debug = self.dbg_root / "usr/lib/debug/.build-id" / build_id[1][:2] / f"{build_id[1][2:]}.debug"
            self.assertTrue(debug.is_file(), f"{program}: no {debug.relative_to(self.dbg_root)} in dbgsym")
            self.assertIn(".debug_info", run(["readelf", "--section-headers", "--wide", debug]).stdout)

    def test_manual_pages_come_from_each_programs_help(self):
        for program in PROGRAMS:
            page = gzip.decompress((self.root / "usr/share/man/man1" / f"{program}.1.gz").read_bytes()).decode()
            self.assertIn(".SH NAME", page)
            self.assertIn(f"{program} \\-", page)
            self.assertIn("--version", page.replace("\\-", "-"))

    def test_extracted_programs_answer_version(self):
        version = self.field(self.deb, "Version").split("-")[0]
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
        for program in PROGRAMS:
            result = run([self.root / "usr/bin" / program, "--version"], env=env, timeout=60)
            self.assertEqual(result.returncode, 0, f"{program}: {result.stderr}")
            self.assertTrue(result.stdout.startswith(f"{program} {version}"), f"{program}: {result.stdout}")

    def test_console_carries_its_translations_and_icon(self):
        gui = (self.root / "usr/bin/ringmaster-gui").read_bytes()
        for name in ("ringmaster_zh_CN.qm", "ringmaster_256.png"):
            self.assertIn(name.encode("utf-16-be"), gui, f"ringmaster-gui has no :/{name} resource")

    def test_python_package_imports_from_debians_folder(self):
        dist = self.root / "usr/lib/python3/dist-packages"
        code = ("import sys, ringmaster, ringmaster._telemetry, ringmaster._bootstrap.sitecustomize; "
                "assert not [m for m in sys.modules if m.split('.')[0] in ('grpc', 'google')]; "
                "print(ringmaster.__file__)")
        result = run(["/usr/bin/python3", "-c", code], env={**os.environ, "PYTHONPATH": str(dist)}, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(result.stdout.strip().startswith(str(dist)), result.stdout)

    def test_extracted_programs_run_a_two_rank_job(self):
        home = self.tmp / "home"
        home.mkdir(exist_ok=True)
        # No PATH to find programs on: ringmaster starts the ringmaster-worker beside it, the extracted one.
        env = {"PATH": str(self.tmp / "no-programs"), "HOME": str(home), "LANG": "C.UTF-8"}
        summary = self.tmp / "summary.json"
        result = run([self.root / "usr/bin/ringmaster", "run", "-np", "2", "--model", "mlp", "--data", "synthetic",
                      "--steps", "20", "--batch-size", "16", "--no-store", "--state-dir", self.tmp / "state",
                      "--summary-json", summary], env=env, cwd=self.tmp, timeout=300)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        report = json.loads(summary.read_text())
        print("\nsummary: " + json.dumps(report)[:600], file=sys.stderr)
        self.assertEqual(report["status"], "finished", report["message"])
        ranks = report["ranks"]
        self.assertEqual([rank["rank"] for rank in ranks], [0, 1])
        for rank in ranks:
            self.assertEqual(rank["steps"], 20, rank)
        # Data-parallel training keeps every rank's parameters the same.
        self.assertEqual(ranks[0]["param_checksum"], ranks[1]["param_checksum"])


if __name__ == "__main__":
    unittest.main()
