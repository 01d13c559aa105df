#include "engine/schedule.h"

#include <cstdlib>
#include <cstring>

#include "reports/diagnostics.h"

namespace cudaemu {

SchedulePolicy schedule_from_environment()
{
    SchedulePolicy policy;
    const char *text = std::getenv("EMU_SCHEDULE");
    if (!text || !*text || std::strcmp(text, "default") == 0) return policy;
    if (std::strncmp(text, "random", 6) == 0 && (text[6] == '\0' || text[6] == ':')) {
        policy.random = true;
        policy.seed = 1;
        if (text[6] == ':') {
            char *end = nullptr;
            policy.seed = std::strtoull(text + 7, &end, 10);
            if (end == text + 7 || *end != '\0')
                fatal("EMU_SCHEDULE=%s: the seed after 'random:' must be a whole number, e.g. EMU_SCHEDULE=random:42",
                      text);
        }
        return policy;
    }
    fatal("EMU_SCHEDULE=%s is not understood: use 'default', 'random' or 'random:<seed>'", text);
}

}  // namespace cudaemu
