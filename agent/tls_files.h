// SPDX-License-Identifier: GPL-3.0-or-later
// The TLS files an agent (--tls-cert, --tls-key) or a console (--tls-ca, a host's CA file) is given, read and
// checked with OpenSSL before gRPC sees them: gRPC takes any bytes, then prints its own log lines and fails
// with a cause that has nothing to do with the file ("the port is in use", "empty address list").
#pragma once

#include <string>

namespace ringmaster::agent {

// The PEM text of `path`, which must hold one certificate or more (a chain, a CA bundle). Throws InputError
// naming `flag` and `path` and what is wrong ("not a PEM certificate (no -----BEGIN CERTIFICATE-----
// block)").
std::string readCertificateFile(const std::string& path, const std::string& flag);

struct TlsKeyPair {
  std::string keyPem;
  std::string certificatePem;
};

// The agent's certificate and its private key, checked to belong together: the key is one OpenSSL reads
// without a passphrase, and the public key of the first certificate (the agent's own) is its. Throws
// InputError naming the flag and file at fault.
TlsKeyPair readTlsKeyPair(const std::string& certificatePath, const std::string& keyPath);

}  // namespace ringmaster::agent
