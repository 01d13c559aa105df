#include "result.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "binfile.h"

static std::string json_string(const std::string &text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string LabResult::to_json() const
{
    std::string json = "{\"lab\": " + json_string(lab_);
    for (const auto &figure : figures_) {
        char number[64];
        // JSON has no NaN or infinity; a figure that is not finite is written as null.
        if (std::isfinite(figure.second))
            std::snprintf(number, sizeof number, "%.9g", figure.second);
        else
            std::snprintf(number, sizeof number, "null");
        json += ", " + json_string(figure.first) + ": " + number;
    }
    for (const auto &note : notes_)
        json += ", " + json_string(note.first) + ": " + json_string(note.second);
    return json + "}\n";
}

void LabResult::write() const
{
    const char *path = std::getenv("LABKIT_RESULT");
    if (!path || !*path)
        return;
    std::string json = to_json();
    write_binary_file(path, json.data(), json.size());
}
