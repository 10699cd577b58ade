"""Run the integration tests against a volery binary.

usage: run.py [--volery PATH] [unittest names...]
Ends with the plain line "N passed, N failed".
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def main():
    args = sys.argv[1:]
    if args[:1] == ["--volery"]:
        harness.VOLERY = os.path.abspath(args[1])
        args = args[2:]
    loader = unittest.TestLoader()
    here = os.path.dirname(os.path.abspath(__file__))
    if args:
        suite = loader.loadTestsFromNames(args)
    else:
        suite = loader.discover(here, pattern="test_*.py")
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors)
    print("integration (%s): %d passed, %d failed"
          % (os.path.relpath(harness.VOLERY), result.testsRun - failed, failed))
    return 0 if failed == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
