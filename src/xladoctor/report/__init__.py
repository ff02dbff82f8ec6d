"""Rendering results for people (text) and programs (JSON); one model feeds both."""
