// The one machine-readable result of a run: named figures (kernel_ms, total_ms, and each lab's
// own) written as JSON to the file named by the environment variable LABKIT_RESULT, which the
// grader sets. Without it nothing is written; the harness prints its human summary anyway.
#pragma once

#include <map>
#include <string>

class LabResult {
public:
    explicit LabResult(const std::string &lab) : lab_(lab) {}
    void set(const std::string &name, double value) { figures_[name] = value; }
    void note(const std::string &name, const std::string &text) { notes_[name] = text; }
    // Writes the JSON file if LABKIT_RESULT is set; throws LabError if it cannot.
    void write() const;
    std::string to_json() const;

private:
    std::string lab_;
    std::map<std::string, double> figures_;
    std::map<std::string, std::string> notes_;
};

// A run's result from start to end: made for `lab` with the device noted, filled by `run`, and
// written once `run` has returned its exit status, which this returns.
template <class Run>
int with_result(const std::string &lab, const std::string &device, Run run)
{
    LabResult result(lab);
    result.note("device", device);
    int status = run(result);
    result.write();
    return status;
}
