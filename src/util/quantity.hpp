#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kube::util {

// A resource amount ("500m", "1Gi", "2e3"); mirrors resource.Quantity of
// k8s.io/apimachinery/pkg/api/resource for what validation asks of one:
// parsing, comparison, the canonical text and the integer views. The amount
// is held exactly to the nano unit, rounded up beyond it as kube does.
class Quantity {
  public:
    // How the amount is written back: its suffix family.
    enum class Format { DecimalExponent, BinarySI, DecimalSI };

    // Mirrors ParseQuantity; nullopt where it returns an error, with kube's
    // message in `error` when given ("quantities must match the regular
    // expression ...", "unable to parse quantity's suffix"). Amounts are held
    // exactly, but one past 10^kMaxExponent is refused: kube-apiserver (and
    // every Go client) computes with the expanded number, which takes it
    // seconds at 10^1000000 and minutes (a 504) at 10^10000000.
    static std::optional<Quantity> parse(std::string_view text, std::string* error = nullptr);
    static constexpr int64_t kMaxExponent = 100000;

    // <0, 0, >0 as this amount is less than, equal to or greater than `o`
    // (Quantity.Cmp).
    int compare(const Quantity& o) const;
    bool isZero() const { return digits_.empty(); }

    // RoundUp(-3), which the core/v1 conversion applies to every value of a
    // ResourceList: finer amounts are rounded away from zero to the milli
    // unit and lose the text they were written with.
    void roundUpToMilli();

    // Quantity.String(): the text ParseQuantity kept when it was already
    // canonical, else the canonical form ("1500m" for "1.5", "1Gi").
    std::string string() const;
    // Value() and MilliValue(): the amount in units / thousandths, rounded up.
    int64_t value() const;
    int64_t milliValue() const;

    // Go's %#v of the Quantity after String() has cached its text, as a
    // field error shows a Quantity bad value. Amounts ParseQuantity keeps as
    // an inf.Dec print their text quoted instead (Go would show a pointer).
    std::string goString() const;

    Format format() const { return format_; }

  private:
    // The int64Amount ParseQuantity's fast path produces.
    struct Int64Amount {
        int64_t value;
        int32_t scale;
    };

    std::string canonical() const;
    // The amount rounded towards +infinity to a multiple of 10^-decimals,
    // as a count of those (saturated to int64).
    int64_t ceilScaled(int decimals) const;

    // The amount is ±digits_ × 10^exponent_: digits_ without leading or
    // trailing zeros (empty for zero), exponent_ >= -9 (the nano unit).
    bool negative_ = false;
    std::string digits_;
    int64_t exponent_ = 0;
    Format format_ = Format::DecimalSI;
    std::optional<Int64Amount> fast_;
    std::string cached_;  // the text ParseQuantity kept, if any
};

}  // namespace kube::util
