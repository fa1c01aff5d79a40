"""``tavli-serve``: the engine over HTTP, a layer above the public API beside the commands.

``app.py`` (the JSON API, the page, the guards), ``jobs.py`` (the running jobs and their
progress), ``schemas.py`` (the request bodies: the commands' long options), ``main.py`` (the
command), ``static/`` (the board page: HTML, CSS and JavaScript, no network needed). It needs
the ``[serve]`` extra (FastAPI, uvicorn); nothing else in the package imports it.
"""
