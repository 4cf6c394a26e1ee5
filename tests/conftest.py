"""Settings shared by every test package."""

from __future__ import annotations

from hypothesis import settings

# A hung test is named with what it awaits, and the run ends (pyproject's faulthandler_timeout).
pytest_plugins = ("tests.watchdog",)

# No timing asserts in tests (speed lives in benchmarks/): Hypothesis's per-example deadline
# would fail a correct test on a loaded machine, so no example has one.
settings.register_profile("fairypost", deadline=None)
settings.load_profile("fairypost")
