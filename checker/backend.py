"""The build backend of the atlas-check package: setuptools', once the engine
(scripts/atlas/atlas_check.py) and the rules (checker/rules.json) are copied into atlascheck/.
In a source distribution they are already there."""
import os
import shutil

from setuptools import build_meta as _setuptools

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "atlascheck")
ENGINE = os.path.join(HERE, "..", "scripts", "atlas", "atlas_check.py")


def _stage():
    if os.path.exists(ENGINE):   # from the repository (a source distribution carries its copies)
        shutil.copyfile(ENGINE, os.path.join(PKG, "engine.py"))
        shutil.copyfile(os.path.join(HERE, "rules.json"), os.path.join(PKG, "rules.json"))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _stage()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    _stage()
    return _setuptools.build_sdist(sdist_directory, config_settings)


get_requires_for_build_wheel = _setuptools.get_requires_for_build_wheel
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist
prepare_metadata_for_build_wheel = _setuptools.prepare_metadata_for_build_wheel
