"""Release Atlas: the fact pipeline behind the site, its MkDocs plugin and its command.

data/*.yaml -> load.py -> validate.py -> enrich.py -> render.py -> MkDocs (plugin.py, pipeline.py)
"""
