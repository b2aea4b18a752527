// SPDX-License-Identifier: GPL-3.0-or-later
#include "agent/tls_files.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>
#include <vector>

#include "common/error.h"
#include "common/small_file.h"

namespace ringmaster::agent {
namespace {

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using Certificate = std::unique_ptr<X509, decltype(&X509_free)>;
using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

Bio memoryBio(const std::string& text) {
  return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), &BIO_free);
}

// OpenSSL's reason for the first error it queued ("bad base64 decode"), and an empty queue after.
std::string openSslReason() {
  const unsigned long code = ERR_peek_error();
  const char* reason = code != 0 ? ERR_reason_error_string(code) : nullptr;
  ERR_clear_error();
  return reason ? reason : "OpenSSL gives no reason";
}

// A key protected by a passphrase is refused, not asked for: the agent runs unattended.
int noPassphrase(char*, int, int, void*) {
  return -1;
}

bool contains(const std::string& text, const char* what) {
  return text.find(what) != std::string::npos;
}

// Every certificate in `pem`, in order; throws when there is none or one cannot be read.
std::vector<Certificate> certificatesOf(const std::string& pem, const std::string& named) {
  if (!contains(pem, "-----BEGIN CERTIFICATE-----")) {
    std::string why = named + ": not a PEM certificate (no -----BEGIN CERTIFICATE----- block)";
    if (contains(pem, "PRIVATE KEY-----")) why += "; it holds a private key";
    throw InputError(why);
  }
  std::vector<Certificate> certificates;
  Bio bio = memoryBio(pem);
  ERR_clear_error();
  while (true) {
    Certificate certificate(PEM_read_bio_X509(bio.get(), nullptr, noPassphrase, nullptr), &X509_free);
    if (!certificate) break;
    certificates.push_back(std::move(certificate));
  }
  // The loop ends at the end of the text (no start line left), or at a block that cannot be read.
  const unsigned long last = ERR_peek_last_error();
  if (certificates.empty() ||
      !(ERR_GET_LIB(last) == ERR_LIB_PEM && ERR_GET_REASON(last) == PEM_R_NO_START_LINE)) {
    throw InputError(named + ": a certificate in it cannot be read (OpenSSL: " + openSslReason() +
                     "); give the PEM file as made, e.g. by openssl req -x509 or your CA");
  }
  ERR_clear_error();
  return certificates;
}

}  // namespace

std::string readCertificateFile(const std::string& path, const std::string& flag) {
  std::string pem = readSmallFile(path, flag);
  certificatesOf(pem, flag + " " + path);
  return pem;
}

TlsKeyPair readTlsKeyPair(const std::string& certificatePath, const std::string& keyPath) {
  TlsKeyPair pair;
  pair.certificatePem = readSmallFile(certificatePath, "--tls-cert");
  pair.keyPem = readSmallFile(keyPath, "--tls-key");
  const std::vector<Certificate> certificates =
      certificatesOf(pair.certificatePem, "--tls-cert " + certificatePath);

  const std::string keyNamed = "--tls-key " + keyPath;
  if (!contains(pair.keyPem, "PRIVATE KEY-----")) {
    std::string why = keyNamed + ": not a PEM private key (no -----BEGIN PRIVATE KEY----- block)";
    if (contains(pair.keyPem, "-----BEGIN CERTIFICATE-----")) why += "; it holds a certificate";
    throw InputError(why);
  }
  if (contains(pair.keyPem, "ENCRYPTED")) {
    throw InputError(keyNamed +
                     ": the key is protected by a passphrase, which the agent cannot ask for; write it "
                     "without one (openssl pkey -in " +
                     keyPath + " -out KEY.pem) readable by the agent's user only");
  }
  Bio bio = memoryBio(pair.keyPem);
  ERR_clear_error();
  Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, noPassphrase, nullptr), &EVP_PKEY_free);
  if (!key) {
    throw InputError(keyNamed + ": the private key in it cannot be read (OpenSSL: " + openSslReason() +
                     "); give the PEM key that was made with the certificate");
  }
  if (X509_check_private_key(certificates.front().get(), key.get()) != 1) {
    ERR_clear_error();
    throw InputError(keyNamed + ": not the key of the certificate in --tls-cert " + certificatePath +
                     "; give the key that was made with that certificate");
  }
  return pair;
}

}  // namespace ringmaster::agent
