"""Every lazily re-exported public name resolves, and importing the package stays light."""

import importlib
import subprocess
import sys

import pytest

PACKAGES = ["logicrules", "logicrules.fca", "logicrules.ideal", "logicrules.lp"]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_public_names_resolve(package):
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"
        assert name in dir(module)


def test_unknown_name_is_an_attribute_error():
    import logicrules

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        logicrules.nope  # noqa: B018


def test_import_does_not_load_heavy_modules():
    code = "import sys, logicrules; print(','.join(m for m in ('sympy', 'sklearn', 'scipy', 'pulp') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
