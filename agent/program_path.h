// SPDX-License-Identifier: GPL-3.0-or-later
// Where a program named on a command line lives: the path to start it by and the file it resolves to, which
// is what the agent's --allow-program list is compared with (/usr/bin/python3 is a link to python3.11).
#pragma once

#include <string>
#include <vector>

namespace ringmaster::agent {

struct ProgramPath {
  std::string path;      // to start it by: absolute, links kept (an interpreter finds its prefix by it)
  std::string resolved;  // the file itself: links and ".." resolved
};

// Finds `name`: a path with a '/' is taken relative to `workingDir` (or the current folder), a bare name is
// looked up on `searchPath` (a PATH value). Throws InputError naming `name` when there is no executable file.
ProgramPath findProgram(const std::string& name, const std::string& workingDir,
                        const std::string& searchPath);

// The folder holding the `ringmaster` Python package for ranks of this installation: <bin>/../python in a
// build tree, <bin>/../<the package's install folder> once installed. Empty when neither holds it.
std::string findPythonRoot(const std::string& binDir);
// Where findPythonRoot looks, in order.
std::vector<std::string> pythonRootCandidates(const std::string& binDir);
// The folder of the running program (what findPythonRoot is given); empty when /proc cannot say.
std::string thisProgramDir();
// What an instrumented program's ranks get in front of their PYTHONPATH: the bootstrap folder, whose
// sitecustomize instruments PyTorch (and chains any other), then the package's root.
std::string instrumentedPythonPath(const std::string& pythonRoot);

}  // namespace ringmaster::agent
