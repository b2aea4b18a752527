// SPDX-License-Identifier: GPL-3.0-or-later
// Waiting for something a real process, socket or file will do: the condition is asked again every `every`
// until it holds or `timeout` has passed (then once more). For code that needs Qt's events delivered while it
// waits, gui_app.h's waitUntil pumps them.
#pragma once

#include <chrono>
#include <functional>

namespace ringmaster::test {

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout,
                std::chrono::milliseconds every = std::chrono::milliseconds(10));

}  // namespace ringmaster::test
