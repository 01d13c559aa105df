#include "bodies.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "binfile.h"
#include "lab_error.h"

static bool ends_with(const std::string &text, const std::string &tail)
{
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

static void check_body(const Body &p, const Body &v, const std::string &where)
{
    float values[] = {p.x, p.y, p.z, p.w, v.x, v.y, v.z};
    for (float value : values)
        if (!std::isfinite(value))
            throw LabError(where + ": a coordinate, mass or velocity is not a finite number");
    if (p.w < 0)
        throw LabError(where + ": mass " + std::to_string(p.w) + " is negative; masses are >= 0");
}

static Bodies read_text(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw LabError("cannot open the bodies file " + path);
    Bodies bodies;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        line = line.substr(0, line.find('#'));
        std::istringstream fields(line);
        std::vector<double> values;
        std::string field;
        while (fields >> field) {
            char *end = nullptr;
            double value = std::strtod(field.c_str(), &end);
            if (*end != '\0')
                throw LabError(path + ":" + std::to_string(number) + ": '" + field + "' is not a number");
            values.push_back(value);
        }
        if (values.empty())
            continue;
        if (values.size() != 4 && values.size() != 7)
            throw LabError(path + ":" + std::to_string(number) + ": " + std::to_string(values.size()) +
                           " numbers; a body's line is 'x y z mass' or 'x y z mass vx vy vz'");
        Body p{float(values[0]), float(values[1]), float(values[2]), float(values[3])};
        Body v{0, 0, 0, 0};
        if (values.size() == 7)
            v = Body{float(values[4]), float(values[5]), float(values[6]), 0};
        check_body(p, v, path + ":" + std::to_string(number));
        bodies.pos.push_back(p);
        bodies.vel.push_back(v);
        if (bodies.n() > kMaxBodies)
            throw LabError(path + ": more than " + std::to_string(kMaxBodies) + " bodies");
    }
    if (bodies.pos.empty())
        throw LabError(path + ": no bodies (one a line: x y z mass [vx vy vz])");
    return bodies;
}

static std::vector<Body> next_float4s(BinaryFile &file, int32_t n, const char *what)
{
    std::vector<Body> out(static_cast<size_t>(n));
    const int32_t *words = file.next_i32_array(static_cast<size_t>(n) * 4, what);
    std::memcpy(out.data(), words, out.size() * sizeof(Body));
    return out;
}

static Bodies read_binary(const std::string &path)
{
    BinaryFile file(path);
    int32_t n = file.next_i32("n (the number of bodies)");
    int32_t k = file.next_i32("k (4 or 8 floats a body)");
    if (n < 1 || n > kMaxBodies)
        throw LabError(path + ": n = " + std::to_string(n) + " bodies; the lab takes 1 to " +
                       std::to_string(kMaxBodies));
    if (k != 4 && k != 8)
        throw LabError(path + ": k = " + std::to_string(k) + " floats a body; a bodies file has 4 (positions and "
                       "masses) or 8 (then velocities); is it a bodies file?");
    size_t expected = 8 + static_cast<size_t>(n) * k * 4;
    if (file.size() != expected)
        throw LabError(path + ": " + std::to_string(file.size()) + " bytes; n = " + std::to_string(n) +
                       " bodies of " + std::to_string(k) + " floats make " + std::to_string(expected));
    Bodies bodies;
    bodies.pos = next_float4s(file, n, "the positions and masses");
    bodies.vel = k == 8 ? next_float4s(file, n, "the velocities") : std::vector<Body>(n, Body{0, 0, 0, 0});
    for (int32_t i = 0; i < n; ++i) {
        bodies.vel[i].w = 0;  // unused: a file's w of a velocity means nothing
        check_body(bodies.pos[i], bodies.vel[i], path + ": body " + std::to_string(i));
    }
    return bodies;
}

Bodies read_bodies(const std::string &path)
{
    return ends_with(path, ".txt") ? read_text(path) : read_binary(path);
}

void write_bodies(const std::string &path, const Bodies &bodies)
{
    int32_t header[2] = {bodies.n(), 8};
    std::vector<unsigned char> bytes(sizeof header + 2 * bodies.pos.size() * sizeof(Body));
    std::memcpy(bytes.data(), header, sizeof header);
    std::memcpy(bytes.data() + sizeof header, bodies.pos.data(), bodies.pos.size() * sizeof(Body));
    std::memcpy(bytes.data() + sizeof header + bodies.pos.size() * sizeof(Body), bodies.vel.data(),
                bodies.vel.size() * sizeof(Body));
    write_binary_file(path, bytes.data(), bytes.size());
}
