"""Build hook: record the commit a wheel is built from (wdg/_build.json).

``wdg --version`` and every month's provenance name the commit and whether the
tree had uncommitted changes. From a checkout wdg asks git; an installed wheel
has no git, so the build writes what git says into the package
(wdg.provenance.build_info reads it). Everything else is in pyproject.toml.
"""

import json
import os
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


class BuildWithCommit(build_py):
    def run(self):
        super().run()
        head = _git("rev-parse", "HEAD")
        status = _git("status", "--porcelain", "--untracked-files=no")
        info = {"commit": head.strip() if head else None,
                "dirty": None if status is None or not head else bool(status.strip())}
        target = os.path.join(self.build_lib, "wdg", "_build.json")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            json.dump(info, f)


setup(cmdclass={"build_py": BuildWithCommit})
