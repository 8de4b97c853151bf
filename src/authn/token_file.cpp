#include "authn/token_file.hpp"

#include <cerrno>
#include <cstring>
#include <sstream>

#include "util/file.hpp"

namespace kube::authn {

namespace {

// Reads CSV records as Go's encoding/csv.Reader does with
// FieldsPerRecord = -1: "\n" or "\r\n" ends a record, empty lines are
// skipped, a quoted field may hold commas, newlines and "" for a quote.
class CsvReader {
  public:
    explicit CsvReader(std::string_view text) : text_(text) {}

    // False at the end; on a syntax error `error` is set as Go words it.
    bool next(std::vector<std::string>& record, int* line, std::string* error) {
        record.clear();
        // skip empty lines
        while (pos_ < text_.size() && (text_[pos_] == '\n' || startsCrLf())) {
            pos_ += text_[pos_] == '\n' ? 1 : 2;
            line_++;
        }
        if (pos_ >= text_.size()) {
            return false;
        }
        int startLine = line_;
        *line = startLine;
        size_t lineStart = pos_;
        for (;;) {
            std::string field;
            if (pos_ < text_.size() && text_[pos_] == '"') {
                pos_++;
                for (;;) {
                    if (pos_ >= text_.size()) {
                        *error = parseError(startLine, line_, pos_ - lineStart + 1,
                                            "extraneous or missing \" in quoted-field");
                        return false;
                    }
                    char c = text_[pos_];
                    if (c == '"') {
                        if (pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
                            field.push_back('"');
                            pos_ += 2;
                            continue;
                        }
                        pos_++;
                        if (pos_ >= text_.size() || text_[pos_] == ',' || text_[pos_] == '\n' ||
                            startsCrLf()) {
                            break;
                        }
                        *error = parseError(startLine, line_, pos_ - lineStart + 1,
                                            "extraneous or missing \" in quoted-field");
                        return false;
                    }
                    if (c == '\n') {
                        line_++;
                        lineStart = pos_ + 1;
                    }
                    field.push_back(c);
                    pos_++;
                }
            } else {
                while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' &&
                       !startsCrLf()) {
                    if (text_[pos_] == '"') {
                        *error = parseError(startLine, line_, pos_ - lineStart + 1,
                                            "bare \" in non-quoted-field");
                        return false;
                    }
                    field.push_back(text_[pos_++]);
                }
            }
            record.push_back(std::move(field));
            if (pos_ < text_.size() && text_[pos_] == ',') {
                pos_++;
                continue;
            }
            if (pos_ < text_.size()) {
                pos_ += text_[pos_] == '\n' ? 1 : 2;
            }
            line_++;
            return true;
        }
    }

  private:
    bool startsCrLf() const {
        return text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n';
    }

    static std::string parseError(int startLine, int line, size_t column, const char* what) {
        std::string out;
        if (startLine != line) {
            out = "record on line " + std::to_string(startLine) + "; ";
        }
        return out + "parse error on line " + std::to_string(line) + ", column " +
               std::to_string(column) + ": " + what;
    }

    std::string_view text_;
    size_t pos_ = 0;
    int line_ = 1;
};

std::vector<std::string> splitGroups(const std::string& s) {
    // strings.Split: "" gives one empty element, as kube keeps it.
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t comma = s.find(',', start);
        out.push_back(s.substr(start, comma - start));
        if (comma == std::string::npos) {
            return out;
        }
        start = comma + 1;
    }
}

}  // namespace

std::shared_ptr<const TokenFile> TokenFile::load(const std::string& path, std::string* error,
                                                 std::vector<std::string>* warnings) {
    std::optional<std::string> text = util::readFile(path, error);
    if (!text) {
        return nullptr;
    }
    return parse(*text, path, error, warnings);
}

std::shared_ptr<const TokenFile> TokenFile::parse(std::string_view text, const std::string& path,
                                                  std::string* error,
                                                  std::vector<std::string>* warnings) {
    auto file = std::make_shared<TokenFile>();
    CsvReader reader(text);
    std::vector<std::string> record;
    int line = 0;
    int recordNum = 0;
    while (reader.next(record, &line, error)) {
        if (record.size() < 3) {
            *error = "token file '" + path +
                     "' must have at least 3 columns (token, user name, user uid), found " +
                     std::to_string(record.size()) + " on line " + std::to_string(line);
            return nullptr;
        }
        recordNum++;
        if (record[0].empty()) {
            if (warnings) {
                warnings->push_back("empty token has been found in token file '" + path +
                                    "', record number '" + std::to_string(recordNum) + "'");
            }
            continue;
        }
        UserInfo user;
        user.name = record[1];
        user.uid = record[2];
        if (record.size() >= 4) {
            user.groups = splitGroups(record[3]);
        }
        if (file->tokens_.count(record[0]) && warnings) {
            warnings->push_back("duplicate token has been found in token file '" + path +
                                "', record number '" + std::to_string(recordNum) + "'");
        }
        file->tokens_[record[0]] = std::move(user);
    }
    if (!error->empty()) {
        return nullptr;
    }
    return file;
}

void TokenFile::authenticateToken(std::string_view token, const std::vector<std::string>&,
                                  AuthCallback done) const {
    auto it = tokens_.find(token);
    if (it == tokens_.end()) {
        done(AuthResult::notMine());
        return;
    }
    done(AuthResult::authenticated(it->second));
}

}  // namespace kube::authn
