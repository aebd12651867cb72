#!/usr/bin/env bash
# Generates a reply with curl: submit, then follow the request on its Server-Sent Events stream
# (`curl -N`) until the final record. Progress goes to stderr, the reply to stdout. Needs jq.
# Usage: CHORUS_URL=http://127.0.0.1:3000 CHORUS_API_KEY=ck_... ./generate.sh "Tell me a story"
set -euo pipefail
url="${CHORUS_URL:-http://127.0.0.1:3000}"
key="${CHORUS_API_KEY:?set CHORUS_API_KEY}"
prompt="${1:-Tell me a short story about a brave cat.}"

body=$(jq -n --arg prompt "$prompt" '{messages: [{role: "You", content: $prompt, index: 0}], samplingParams: {max_tokens: 120}}')
# --retry retries 429/5xx (after Retry-After) and network errors; the Idempotency-Key makes that safe.
id=$(curl -sS --fail-with-body --retry 4 --retry-all-errors -H "Authorization: Bearer $key" -H "Content-Type: application/json" \
  -H "Idempotency-Key: $(cat /proc/sys/kernel/random/uuid 2>/dev/null || date +%s%N)" -d "$body" "$url/api/text/default" | jq -r .id)
echo "submitted $id" >&2

# Each event's `data:` line is the whole record; the stream ends after the final one.
last=""
while IFS= read -r line; do
  line="${line%$'\r'}"
  case "$line" in
    data:*)
      last="${line#data: }"
      jq -r 'if .partialReply then "… " + .partialReply else "status: " + .status end' <<<"$last" >&2
      ;;
  esac
done < <(curl -sS -N --fail-with-body -H "Authorization: Bearer $key" -H "Accept: text/event-stream" "$url/api/v2/status/$id")

status=$(jq -r .status <<<"$last")
if [ "$status" != "completed" ]; then
  echo "request $id ended $status: $(jq -r '.error // "the stream broke off"' <<<"$last")" >&2
  exit 1
fi
jq -r .reply <<<"$last"
