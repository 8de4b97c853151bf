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

    // Mirrors ParseQuantity; nullopt where it returns an error.
    static std::optional<Quantity> parse(std::string_view text);

    // <0, 0, >0 as this amount is less than, equal to or greater than `o`
    // (Quantity.Cmp).
    int compare(const Quantity& o) const;
    bool isZero() const { return nano_ == 0; }

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

    __int128 nano_ = 0;  // the amount in units of 1e-9
    Format format_ = Format::DecimalSI;
    std::optional<Int64Amount> fast_;
    std::string cached_;  // the text ParseQuantity kept, if any
};

}  // namespace kube::util
