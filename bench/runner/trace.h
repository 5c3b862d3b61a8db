#pragma once
// Request traces to replay: one (prompt length, output length) pair per row
// of a CSV file, optionally with the request's arrival time.
#include <cstddef>
#include <string>
#include <vector>

namespace pdbench::runner {

struct TraceRow {
  size_t line = 0;  // in the CSV file (the header is line 1)
  size_t prompt_tokens = 0;
  size_t output_tokens = 0;
  std::string arrival;  // the arrival column's text as given; empty without one
};

struct Trace {
  std::string arrival_column;  // the column arrival times came from; empty without one
  std::vector<TraceRow> rows;
};

// Column names accepted (case-insensitive), first match wins.
const std::vector<std::string>& trace_prompt_columns();   // ContextTokens, prompt_tokens, input_tokens
const std::vector<std::string>& trace_output_columns();   // GeneratedTokens, output_tokens
const std::vector<std::string>& trace_arrival_columns();  // TIMESTAMP, arrival_ms, arrival_s, arrival_time

// Reads a trace with libcsv; throws pdbench::Error naming FILE:LINE for a
// missing column, an empty trace, or a length that is not an integer >= 1.
Trace read_trace(const std::string& path);

// Each row's arrival in ms from the earliest row's: arrival_ms in ms,
// arrival_s in seconds, TIMESTAMP and arrival_time a number of ms or a
// date-time "YYYY-MM-DD HH:MM:SS[.fraction]" (the Azure traces'). Throws
// pdbench::Error naming PATH:LINE for a cell that is neither, and when the
// trace has no arrival column.
std::vector<double> trace_arrival_ms(const Trace& trace, const std::string& path);

}  // namespace pdbench::runner
