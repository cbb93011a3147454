# wdg — the two set-up commands are `make demo` and `make test`.
# Both create the virtual environment and install what is needed on first use.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO   := out/demo

.PHONY: demo test bench syslibs browser mailservers systemd clean help check

help:
	@echo "make demo   - set up if needed, run the demo campaign (worlds/canura) in $(DEMO)/"
	@echo "make test   - set up if needed, ruff and mypy, then the whole test suite"
	@echo "make check  - ruff and mypy alone (make test runs them first)"
	@echo "make bench  - benchmarks (after make test's set-up), writes bench/results.json"

# WeasyPrint uses HarfBuzz's subsetting library for fast font subsetting.
syslibs:
	@if ! ldconfig -p 2>/dev/null | grep -q 'libharfbuzz-subset\.so'; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    echo "installing libharfbuzz-subset0 (needed by WeasyPrint)"; \
	    (apt-get install -y -qq libharfbuzz-subset0 >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq libharfbuzz-subset0 >/dev/null)) || \
	    { echo "error: could not install libharfbuzz-subset0 with apt-get"; exit 1; }; \
	  else \
	    echo "error: libharfbuzz-subset0 is missing; install it (e.g. 'sudo apt-get install libharfbuzz-subset0') and run make again"; exit 1; \
	  fi; \
	fi

# The order editor's real-browser test (tests/e2e/test_editor_browser.py) drives
# Debian's chromium through chromium-driver: make test installs them the same
# way (make demo does not need them). WDG_SKIP_BROWSER=1 skips test and check.
browser:
	@if [ -z "$$WDG_SKIP_BROWSER" ] && { [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; }; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    echo "installing chromium and chromium-driver (for the order editor's browser test)"; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null)) || \
	    { echo "error: could not install chromium and chromium-driver with apt-get"; exit 1; }; \
	  else \
	    echo "error: chromium and chromium-driver are missing; install them (e.g. 'sudo apt-get install chromium chromium-driver') or set WDG_SKIP_BROWSER=1, and run make again"; exit 1; \
	  fi; \
	fi

# The mail tests (tests/mail/, issue #34) start their own Dovecot IMAP/LMTP and
# Postfix on 127.0.0.1 (tests/mailservers.py) and run getmail6, fetchmail and
# SpamAssassin against them: make test installs Debian's packages the same way.
# Postfix is preseeded with "No configuration", so the package starts no system
# instance; a system Dovecot the install may start listens on 143/993 with its
# own /run/dovecot and does not meet the tests' servers (random free ports,
# private directories), so it is left alone.  WDG_SKIP_MAILSERVERS=1 skips the
# install and makes the mail tests skip (with that reason) where binaries are missing.
MAIL_PKGS := dovecot-imapd dovecot-lmtpd postfix spamassassin getmail6 fetchmail
mailservers:
	@if [ -z "$$WDG_SKIP_MAILSERVERS" ] && { [ ! -x /usr/sbin/dovecot ] || [ ! -x /usr/lib/dovecot/imap ] || \
	    [ ! -x /usr/lib/dovecot/lmtp ] || [ ! -x /usr/sbin/postfix ] || [ ! -x /usr/bin/spamassassin ] || \
	    [ ! -x /usr/bin/getmail ] || [ ! -x /usr/bin/fetchmail ]; }; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    echo "installing $(MAIL_PKGS) (for the mail tests' own servers on 127.0.0.1)"; \
	    echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(MAIL_PKGS) >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(MAIL_PKGS) >/dev/null)) || \
	    { echo "error: could not install $(MAIL_PKGS) with apt-get"; exit 1; }; \
	  else \
	    echo "error: the mail tests need $(MAIL_PKGS); install them as root (e.g. 'sudo apt-get install $(MAIL_PKGS)') or set WDG_SKIP_MAILSERVERS=1, and run make again"; exit 1; \
	  fi; \
	fi

# The shipped systemd units (wdg mail install-timer, issue #39) are checked with
# systemd-analyze verify in tests/mail/test_recipes.py: make test installs Debian's
# systemd package for that binary (nothing is started). WDG_SKIP_SYSTEMD=1 skips
# the install and that check.
systemd:
	@if [ -z "$$WDG_SKIP_SYSTEMD" ] && [ ! -x /usr/bin/systemd-analyze ]; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    echo "installing systemd (systemd-analyze verify for the shipped units)"; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq systemd >/dev/null)) || \
	    { echo "error: could not install systemd with apt-get"; exit 1; }; \
	  else \
	    echo "error: systemd-analyze is missing; install it (e.g. 'sudo apt-get install systemd') or set WDG_SKIP_SYSTEMD=1, and run make again"; exit 1; \
	  fi; \
	fi

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	@touch $@

demo: syslibs $(STAMP)
	$(BIN)/wdg demo --out $(DEMO)

# lint (pyflakes, bugbear, blind except) and types first: any finding fails make test
# (configuration in pyproject.toml, docs/testing.md)
check: $(STAMP)
	$(BIN)/ruff check wdg tests
	$(BIN)/mypy

test: syslibs browser mailservers systemd $(STAMP) check
	$(BIN)/python -m pytest -n auto --maxprocesses 4 --dist loadfile

bench: syslibs $(STAMP)
	$(BIN)/python -m wdg.bench

clean:
	rm -rf $(VENV) out build *.egg-info .pytest_cache .mypy_cache .ruff_cache
