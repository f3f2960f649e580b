"""Release Atlas: the fact pipeline behind the site.

data/*.yaml -> load.py -> validate.py -> enrich.py -> render.py -> MkDocs (hook.py)
"""
