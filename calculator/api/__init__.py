"""The public JSON API at /api/v1/: the model page's numbers for scripts, tools and other sites.

It sits on top of the catalog and pricing like the page does, shares the page's query-string parser
(``calculator.state``) and its numbers (``calculator.page.model_page``), and describes itself in an OpenAPI 3.1
schema that django-ninja generates from the typed classes in ``schemas``.
"""
