"""renderer package."""
