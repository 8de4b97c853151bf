#include "registry/service/allocation_bitmap.hpp"

#include <charconv>

namespace kube::registry::service {

namespace {

bool parseInt(std::string_view text, int& out) {
    if (text.empty() || text.size() > 9) {
        return false;
    }
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
}

// calculateRangeOffset: min(max(16, size/16), 256), none below 16 addresses.
int staticBandOf(uint64_t size) {
    if (size < 16) {
        return 0;
    }
    uint64_t band = size / 16;
    return static_cast<int>(band < 16 ? 16 : band > 256 ? 256 : band);
}

}  // namespace

AllocationBitmap::AllocationBitmap(int max, int offset)
    : max_(max < 0 ? 0 : max),
      // A band as large as the range would leave nothing above it.
      offset_(offset > 0 && offset < max_ ? offset : 0),
      words_((static_cast<size_t>(max_) + 63) / 64, 0) {}

bool AllocationBitmap::has(int offset) const {
    return offset >= 0 && offset < max_ && (words_[offset / 64] >> (offset % 64) & 1);
}

bool AllocationBitmap::allocate(int offset) {
    if (offset < 0 || offset >= max_ || has(offset)) {
        return false;
    }
    words_[offset / 64] |= uint64_t(1) << (offset % 64);
    count_++;
    return true;
}

void AllocationBitmap::release(int offset) {
    if (has(offset)) {
        words_[offset / 64] &= ~(uint64_t(1) << (offset % 64));
        count_--;
    }
}

std::optional<int> AllocationBitmap::allocateNext(std::mt19937_64& random) {
    if (count_ >= max_) {
        return std::nullopt;
    }
    // Mirrors randomScanStrategyWithOffset (and randomScanStrategy when the
    // offset is 0): a random start above the band, scanning with wrap-around,
    // then the band.
    auto scan = [&](int from, int size) -> std::optional<int> {
        if (size <= 0) {
            return std::nullopt;
        }
        int start = static_cast<int>(random() % static_cast<uint64_t>(size));
        for (int i = 0; i < size; i++) {
            int at = from + (start + i) % size;
            if (!has(at)) {
                return at;
            }
        }
        return std::nullopt;
    };
    std::optional<int> at = scan(offset_, max_ - offset_);
    if (!at) {
        at = scan(0, offset_);
    }
    if (at) {
        allocate(*at);
    }
    return at;
}

std::string AllocationBitmap::snapshot() const {
    std::string out;
    size_t bytes = words_.size() * 8;
    out.reserve(bytes);
    for (size_t i = bytes; i-- > 0;) {
        auto byte = static_cast<char>(words_[i / 8] >> (i % 8 * 8) & 0xff);
        if (out.empty() && byte == 0) {
            continue;  // big.Int.Bytes has no leading zeros
        }
        out.push_back(byte);
    }
    return out;
}

void AllocationBitmap::restore(std::string_view bytes) {
    std::fill(words_.begin(), words_.end(), 0);
    count_ = 0;
    size_t n = bytes.size();
    for (size_t i = 0; i < n; i++) {
        auto byte = static_cast<unsigned char>(bytes[n - 1 - i]);
        for (int bit = 0; bit < 8 && byte; bit++, byte >>= 1) {
            if (byte & 1) {
                uint64_t offset = i * 8 + static_cast<uint64_t>(bit);
                if (offset < static_cast<uint64_t>(max_)) {
                    allocate(static_cast<int>(offset));
                }
            }
        }
    }
}

std::string formatIPv4(uint32_t ip) {
    return std::to_string(ip >> 24) + "." + std::to_string(ip >> 16 & 0xff) + "." +
           std::to_string(ip >> 8 & 0xff) + "." + std::to_string(ip & 0xff);
}

std::optional<uint32_t> parseIPv4(std::string_view text) {
    uint32_t ip = 0;
    for (int part = 0; part < 4; part++) {
        size_t dot = part < 3 ? text.find('.') : text.size();
        if (dot == std::string_view::npos) {
            return std::nullopt;
        }
        int value = 0;
        if (!parseInt(text.substr(0, dot), value) || value > 255) {
            return std::nullopt;
        }
        ip = ip << 8 | static_cast<uint32_t>(value);
        text.remove_prefix(part < 3 ? dot + 1 : dot);
    }
    return ip;
}

std::optional<IpRange> IpRange::parse(std::string_view cidr, std::string* error) {
    size_t slash = cidr.find('/');
    std::optional<uint32_t> ip =
        slash == std::string_view::npos ? std::nullopt : parseIPv4(cidr.substr(0, slash));
    int prefix = 0;
    if (!ip || !parseInt(cidr.substr(slash + 1), prefix) || prefix > 32) {
        *error = "invalid IPv4 CIDR \"" + std::string(cidr) + "\"";
        return std::nullopt;
    }
    // kube's --service-cluster-ip-range checks: a bitmap of at most 2^20.
    if (prefix < 12) {
        *error = "\"" + std::string(cidr) +
                 "\" is too large; for 32-bit addresses, the mask must be >= 12";
        return std::nullopt;
    }
    if (prefix > 30) {
        *error = "\"" + std::string(cidr) + "\" holds no address for a service";
        return std::nullopt;
    }
    IpRange r;
    r.prefix = prefix;
    r.network = *ip & (prefix == 0 ? 0 : ~uint32_t(0) << (32 - prefix));
    r.spec = formatIPv4(r.network) + "/" + std::to_string(prefix);
    uint64_t size = uint64_t(1) << (32 - prefix);
    r.max = static_cast<int>(size - 2);
    r.staticBand = staticBandOf(size);
    return r;
}

std::optional<int> IpRange::offsetOf(uint32_t ip) const {
    if (ip <= network) {
        return std::nullopt;
    }
    uint64_t offset = uint64_t(ip) - network - 1;
    if (offset >= static_cast<uint64_t>(max)) {
        return std::nullopt;
    }
    return static_cast<int>(offset);
}

std::optional<PortRange> PortRange::parse(std::string_view text, std::string* error) {
    // net.ParsePortRange: "base-last" or "base+size" or a single port.
    PortRange r;
    size_t dash = text.find_first_of("-+");
    int first = 0;
    int second = 0;
    bool ok = parseInt(text.substr(0, dash), first);
    if (ok && dash != std::string_view::npos) {
        ok = parseInt(text.substr(dash + 1), second);
    }
    if (ok) {
        r.base = first;
        r.size = dash == std::string_view::npos ? 1
                 : text[dash] == '+'            ? second
                                                : second - first + 1;
    }
    if (!ok || r.base < 1 || r.size < 1 || r.base + r.size - 1 > 65535) {
        *error = "invalid port range \"" + std::string(text) + "\"";
        return std::nullopt;
    }
    r.spec = std::to_string(r.base) + "-" + std::to_string(r.base + r.size - 1);
    return r;
}

}  // namespace kube::registry::service
