#include <curl/curl.h>

/* curl_easy_setopt is variadic, which Swift cannot call: one typed wrapper per argument kind. */
static inline CURLcode keyshelf_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode keyshelf_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode keyshelf_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode keyshelf_curl_setopt_write(CURL *handle, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode keyshelf_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode keyshelf_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
/* CURLOPT_CAINFO_BLOB and friends: libcurl copies the bytes (CURL_BLOB_COPY). */
static inline CURLcode keyshelf_curl_setopt_blob(CURL *handle, CURLoption option, const void *bytes, size_t count) {
    struct curl_blob blob = { (void *)bytes, count, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}
/* CURLAUTH_BASIC is a cast macro, which Swift cannot import. */
static const long keyshelf_curlauth_basic = (long)CURLAUTH_BASIC;
