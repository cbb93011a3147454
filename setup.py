"""Build hook: record the commit a wheel is built from (wdg/_build.json), and ship
the campaign data a checkout has beside the package (wdg/_shipped/).

``wdg --version`` and every month's provenance name the commit and whether the
tree had uncommitted changes. From a checkout wdg asks git; an installed wheel
has no git, so the build writes what git says into the package
(wdg.provenance.build_info reads it). The shipped templates, rules and demo
campaign live at the checkout's top level; a wheel carries a copy in
wdg/_shipped/ (wdg.campaign.PACKAGE_ROOT points there when there is no checkout),
so that `pip install wdg==X` is a complete wdg (docs/turns.md, "Releases").
Everything else is in pyproject.toml.
"""

import json
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py


def _git(*args):
    try:
        out = subprocess.run(["git", *args], capture_output=True, text=True, timeout=20,
                             cwd=os.path.dirname(os.path.abspath(__file__)))
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


SHIPPED = ("templates", "worlds/rules", "worlds/canura", "orders/canura", "docs/report-schema.json")
"""What PACKAGE_ROOT holds in a checkout (wdg.campaign) and a wheel carries in wdg/_shipped/."""


class BuildWithCommit(build_py):
    def run(self):
        super().run()
        here = os.path.dirname(os.path.abspath(__file__))
        for part in SHIPPED:
            src, dst = os.path.join(here, part), os.path.join(self.build_lib, "wdg", "_shipped", part)
            if os.path.isdir(src):
                shutil.copytree(src, dst, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "turns", ".lock"))
            elif os.path.isfile(src):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copyfile(src, dst)
        head = _git("rev-parse", "HEAD")
        status = _git("status", "--porcelain", "--untracked-files=no")
        info = {"commit": head.strip() if head else None,
                "dirty": None if status is None or not head else bool(status.strip())}
        target = os.path.join(self.build_lib, "wdg", "_build.json")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            json.dump(info, f)


setup(cmdclass={"build_py": BuildWithCommit})
