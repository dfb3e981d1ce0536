#!/usr/bin/env bash
# The ingest A/B, kept by its old name: `bash bench/ingest-ab.sh <before-ref> [rounds] [events]` is
# `bash bench/ab.sh ingest <before-ref> [rounds] [events]` (bench/ab.sh).
exec bash "$(dirname "${BASH_SOURCE[0]}")/ab.sh" ingest "$@"
