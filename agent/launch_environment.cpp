// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/launch_environment.h"

#include <algorithm>

namespace ringmaster::agent {

const std::vector<std::string>& guardedVariables() {
  static const std::vector<std::string> names = {
      // The dynamic loader and glibc: libraries preloaded or searched, audit modules, tunables, the
      // character-set and locale modules they load.
      "LD_*", "GLIBC_TUNABLES", "GCONV_PATH", "GETCONF_DIR", "LOCPATH", "NLSPATH", "HOSTALIASES",
      "MALLOC_TRACE", "RESOLV_HOST_CONF",
      // Shells: a file sourced at start, exported functions, traced prompts that expand commands.
      "BASH_ENV", "ENV", "BASH_FUNC_*", "SHELLOPTS", "BASHOPTS", "PS4",
      // Python: module paths, the prefix, startup and bytecode files, the debugger hook.
      "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONINSPECT", "PYTHONEXECUTABLE",
      "PYTHONPLATLIBDIR", "PYTHONPYCACHEPREFIX", "PYTHONBREAKPOINT",
      // Other interpreters' module paths and options.
      "PERL5LIB", "PERLLIB", "PERL5OPT", "PERL5DB", "RUBYLIB", "RUBYOPT", "NODE_OPTIONS", "NODE_PATH",
      "LUA_INIT", "LUA_PATH", "LUA_CPATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
      "CLASSPATH",
      // Libraries a training program loads that load modules of their own.
      "OPENSSL_CONF", "OPENSSL_ENGINES", "CUDA_INJECTION64_PATH"};
  return names;
}

bool isGuardedVariable(const std::string& name) {
  const auto& guarded = guardedVariables();
  return std::any_of(guarded.begin(), guarded.end(), [&](const std::string& g) {
    if (!g.empty() && g.back() == '*') return name.rfind(g.substr(0, g.size() - 1), 0) == 0;
    return name == g;
  });
}

std::string environmentRefusal(const std::string& entry, const std::vector<std::string>& allowed) {
  const std::string name = entry.substr(0, entry.find('='));
  if (!isGuardedVariable(name) || std::find(allowed.begin(), allowed.end(), name) != allowed.end()) return {};
  return "a launch may not set " + name +
         ", which changes what the program loads or runs before its own code: the agent's owner allows it "
         "by starting the agent with --allow-env " +
         name;
}

}  // namespace ringmaster::agent
