"""Settings every test shares.

Hypothesis measures each example against a wall-clock deadline and flags data
generation that seems too slow; on a busy machine both fail tests whose
behaviour is fine. Speed is checked where it matters, by the growth tests in
test_reliability.py, with CPU time; here hypothesis only checks behaviour.
"""

from hypothesis import HealthCheck, settings

settings.register_profile("editblocks", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("editblocks")
