"""The build backend of the atlas-check package: setuptools', while the engine
(scripts/atlas/atlas_check.py) and the rules (checker/rules.json) are copied into atlascheck/.
In a source distribution they are already there."""
import os
import shutil

from setuptools import build_meta as _setuptools

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "atlascheck")
ENGINE = os.path.join(HERE, "..", "scripts", "atlas", "atlas_check.py")


def _staged(build):
    """Run ``build`` with the engine and the rules copied into the package, from the repository
    (a source distribution carries its copies), and remove the copies after, so a clone never
    runs a stale one."""
    if not os.path.exists(ENGINE):
        return build()
    copies = [(ENGINE, os.path.join(PKG, "engine.py")), (os.path.join(HERE, "rules.json"), os.path.join(PKG, "rules.json"))]
    for src, dst in copies:
        shutil.copyfile(src, dst)
    try:
        return build()
    finally:
        for _, dst in copies:
            os.remove(dst)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _staged(lambda: _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_sdist(sdist_directory, config_settings=None):
    return _staged(lambda: _setuptools.build_sdist(sdist_directory, config_settings))


get_requires_for_build_wheel = _setuptools.get_requires_for_build_wheel
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist
prepare_metadata_for_build_wheel = _setuptools.prepare_metadata_for_build_wheel
