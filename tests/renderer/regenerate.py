"""`python -m tests.renderer.regenerate`: rewrite the renderer's reference images."""

from tests.renderer.references import regenerate

if __name__ == "__main__":
    for path in regenerate():
        print(f"wrote {path}")
