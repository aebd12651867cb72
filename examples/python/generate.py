#!/usr/bin/env python3
"""Generates a reply with plain HTTP (requests): submit, then wait with `Prefer: wait` instead of
polling every second. Progress goes to stderr, the reply to stdout.

Usage: CHORUS_URL=http://127.0.0.1:3000 CHORUS_API_KEY=ck_... python3 generate.py "Tell me a story"
"""
import os
import random
import sys
import time
import uuid

import requests

BASE_URL = os.environ.get("CHORUS_URL", "http://127.0.0.1:3000").rstrip("/")
API_KEY = os.environ.get("CHORUS_API_KEY") or sys.exit("set CHORUS_API_KEY")
SESSION = requests.Session()
SESSION.headers["Authorization"] = f"Bearer {API_KEY}"
RETRYABLE = {429, 500, 502, 503, 504}


def call(method, path, attempts=5, **kwargs):
    """One API call, retried as the contract advises: after Retry-After on 429/503, with
    exponential backoff and jitter on 5xx and network errors. Returns the parsed JSON."""
    for attempt in range(attempts):
        try:
            response = SESSION.request(method, BASE_URL + path, timeout=90, **kwargs)
        except requests.ConnectionError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.5 * 2**attempt * (0.5 + random.random() / 2))
            continue
        if response.status_code not in RETRYABLE or attempt == attempts - 1:
            break
        retry_after = response.headers.get("Retry-After", "")
        delay = int(retry_after) if retry_after.isdigit() else 0.5 * 2**attempt
        time.sleep(delay + random.random() / 2)
    if not response.ok:
        try:
            error = response.json()["error"]
        except (ValueError, KeyError):  # not the API's error envelope (a proxy's page)
            error = {"code": "HTTP_ERROR", "message": response.text[:200]}
        sys.exit(f"{error.get('code')} (HTTP {response.status_code}): {error.get('message')}")
    return response.json()


def generate(prompt):
    body = {"messages": [{"role": "You", "content": prompt, "index": 0}], "samplingParams": {"max_tokens": 120}}
    # The same Idempotency-Key on every retry: a submit whose answer was lost is not run twice.
    submitted = call("POST", "/api/text/default", json=body, headers={"Idempotency-Key": str(uuid.uuid4())})
    request_id = submitted["id"]
    print(f"submitted {request_id}", file=sys.stderr)
    while True:
        # Answers as soon as the request has finished, or after 30 s with the record as it stands.
        record = call("GET", f"/api/v2/status/{request_id}", headers={"Prefer": "wait=30"})
        if record["status"] == "completed":
            return record
        if record["status"] == "error":
            sys.exit(f"request {request_id} failed: {record['error']}")
        print(f"processing: {round(record.get('progress', 0) * 100)} %", file=sys.stderr)


if __name__ == "__main__":
    result = generate(sys.argv[1] if len(sys.argv) > 1 else "Tell me a short story about a brave cat.")
    print(f"done: {result['tokens']} tokens", file=sys.stderr)
    print(result["reply"])
