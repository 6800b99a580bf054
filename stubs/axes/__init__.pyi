# django-axes 8: only what the tests call.
