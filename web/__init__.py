"""Request and response helpers every app's views share. Imports no project code, so every app may use it."""
