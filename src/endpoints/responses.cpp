#include "endpoints/responses.hpp"

#include "endpoints/protobuf_encoder.hpp"
#include "registry/encoding.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

HttpResponse protobufResponse(int code, std::string body) {
    HttpResponse r;
    r.status = code;
    r.contentType = std::string(kProtobufMediaType);
    r.body = std::move(body);
    return r;
}

// A response that could not be encoded: kube reports the encoder's error
// as a 500 in the same media type.
HttpResponse encodeFailure(const std::string& why, const RenderOptions& r) {
    return statusResponse(meta::Status::internalError(why), r);
}

HttpResponse jsonResponse(int code, std::string body, bool pretty) {
    if (pretty) {
        json::Document doc;
        if (!json::parse(body, doc)) {
            body = json::serializePretty(doc);
        }
    }
    return HttpResponse::json(code, std::move(body));
}

json::Value columnDefinitions(const registry::KindInfo& kind, json::Allocator& a) {
    json::Value cols(rapidjson::kArrayType);
    for (const registry::TableColumn& c : kind.columns) {
        json::Value col(rapidjson::kObjectType);
        col.AddMember("name", json::stringValue(c.name, a), a);
        col.AddMember("type", json::stringValue(c.type, a), a);
        col.AddMember("format", json::stringValue(c.format, a), a);
        col.AddMember("description", json::stringValue(c.description, a), a);
        col.AddMember("priority", c.priority, a);
        cols.PushBack(col, a);
    }
    return cols;
}

void addRow(json::Value& rows, std::string_view stored, const RenderOptions& r,
            json::Allocator& a) {
    json::Document obj;
    if (json::parse(stored, obj) || !obj.IsObject()) {
        return;
    }
    json::Value row(rapidjson::kObjectType);
    json::Value cells(rapidjson::kArrayType);
    for (const registry::TableColumn& c : r.kind->columns) {
        cells.PushBack(c.cell ? c.cell(obj, r.table, a) : json::Value(), a);
    }
    row.AddMember("cells", cells, a);
    switch (r.includeObject) {
        case IncludeObject::None:
            row.AddMember("object", json::Value(), a);
            break;
        case IncludeObject::Object:
            row.AddMember("object", json::Value(obj, a), a);
            break;
        case IncludeObject::Metadata: {
            json::Value partial(rapidjson::kObjectType);
            partial.AddMember("kind", "PartialObjectMetadata", a);
            partial.AddMember("apiVersion", json::stringValue(r.output.tableGroupVersion, a), a);
            if (const json::Value* m = json::member(obj, "metadata")) {
                partial.AddMember("metadata", json::Value(*m, a), a);
            }
            row.AddMember("object", partial, a);
            break;
        }
    }
    rows.PushBack(row, a);
}

std::string tableJson(const RenderOptions& r, const json::Value& listMeta,
                      std::span<const std::string_view> objects, bool withColumns, bool pretty) {
    json::Document t(rapidjson::kObjectType);
    auto& a = t.GetAllocator();
    t.AddMember("kind", "Table", a);
    t.AddMember("apiVersion", json::stringValue(r.output.tableGroupVersion, a), a);
    t.AddMember("metadata", json::Value(listMeta, a), a);
    t.AddMember("columnDefinitions",
                withColumns ? columnDefinitions(*r.kind, a) : json::Value(), a);
    json::Value rows(rapidjson::kArrayType);
    for (std::string_view o : objects) {
        addRow(rows, o, r, a);
    }
    t.AddMember("rows", rows, a);
    return pretty ? json::serializePretty(t) : json::serialize(t);
}

HttpResponse tableResponse(const RenderOptions& r, const json::Value& listMeta,
                                   std::span<const std::string_view> objects) {
    return HttpResponse::json(200, tableJson(r, listMeta, objects, true, r.pretty));
}

// A one-row table carries the object's resourceVersion.
json::Document objectTableMeta(std::string_view stored) {
    json::Document meta(rapidjson::kObjectType);
    json::Document obj;
    if (!json::parse(stored, obj)) {
        if (const json::Value* rv = json::at(obj, {"metadata", "resourceVersion"})) {
            meta.AddMember("resourceVersion", json::Value(*rv, meta.GetAllocator()),
                           meta.GetAllocator());
        }
    }
    return meta;
}

}  // namespace

HttpResponse objectResponse(int code, std::string_view stored, const RenderOptions& r) {
    // An object read at another version than it is stored at.
    std::string served;
    // Table cells read the stored shape.
    bool table = r.output.form == OutputForm::Table;
    if (!r.kind->servedAtStorageVersion() && !(table && r.kind->storedAs)) {
        served = registry::servedObject(*r.kind, stored);
        stored = served;
    }
    if (r.output.form == OutputForm::Protobuf) {
        std::string body;
        if (auto why = encodeProtobufObject(stored, r.kind->apiVersion(), r.kind->kind, &body)) {
            return encodeFailure(*why, r);
        }
        return protobufResponse(code, std::move(body));
    }
    if (r.output.form == OutputForm::Table) {
        json::Document meta = objectTableMeta(stored);
        std::string_view one[] = {stored};
        HttpResponse resp = tableResponse(r, meta, one);
        resp.status = code;
        return resp;
    }
    return jsonResponse(code, std::string(stored), r.pretty);
}

HttpResponse statusResponse(const meta::Status& s, const RenderOptions& r) {
    if (r.output.form != OutputForm::Protobuf) {
        return HttpResponse::fromStatus(s, r.pretty);
    }
    HttpResponse resp = protobufResponse(s.code, encodeProtobufStatus(s));
    if (s.details && s.details->retryAfterSeconds > 0) {
        resp.headers.emplace_back("Retry-After", std::to_string(s.details->retryAfterSeconds));
    }
    return resp;
}

std::string watchTable(std::string_view stored, const RenderOptions& r, bool withColumns) {
    json::Document meta = objectTableMeta(stored);
    std::string_view one[] = {stored};
    return tableJson(r, meta, one, withColumns, false);
}

ListEncoder::ListEncoder(const RenderOptions& render, const registry::ListPage& page)
    : render_(render), prefix_(registry::storedPrefix(*render.kind)) {
    if (render.output.form == OutputForm::Protobuf) {
        meta_ = protobufListMeta(std::to_string(page.revision), page.continueToken,
                                 page.remainingItemCount);
        return;
    }
    meta_ = "{\"resourceVersion\":\"" + std::to_string(page.revision) + "\"";
    if (!page.continueToken.empty()) {
        meta_ += ",\"continue\":";
        json::appendQuoted(meta_, page.continueToken);
    }
    if (page.remainingItemCount) {
        meta_ += ",\"remainingItemCount\":" + std::to_string(*page.remainingItemCount);
    }
    meta_ += '}';
}

void ListEncoder::head(std::string& out) const {
    if (render_.output.form == OutputForm::Protobuf) {
        out += protobufEnvelopeHead(render_.kind->apiVersion(), render_.kind->listKind(),
                                    meta_.size() + itemsSize_);
        out += meta_;
        return;
    }
    if (render_.output.form == OutputForm::Table) {
        json::Document cols(rapidjson::kObjectType);
        json::Value defs = columnDefinitions(*render_.kind, cols.GetAllocator());
        out += "{\"kind\":\"Table\",\"apiVersion\":";
        json::appendQuoted(out, render_.output.tableGroupVersion);
        out += ",\"metadata\":" + meta_ + ",\"columnDefinitions\":" + json::serialize(defs) +
               ",\"rows\":[";
        return;
    }
    out += "{\"kind\":";
    json::appendQuoted(out, render_.kind->listKind());
    out += ",\"apiVersion\":";
    json::appendQuoted(out, render_.kind->apiVersion());
    out += ",\"metadata\":" + meta_ + ",\"items\":[";
}

bool ListEncoder::item(std::string& out, const storage::cacher::CachedObject& cached,
                       std::string* error) {
    std::string_view borrowed;
    if (!item(out, cached, borrowed, error)) {
        return false;
    }
    out.append(borrowed);
    return true;
}

bool ListEncoder::item(std::string& out, const storage::cacher::CachedObject& cached,
                       std::string_view& borrowed, std::string* error) {
    borrowed = {};
    // Converted on every list: the cached object's memos are the stored
    // shape's, shared with the kind stored there.
    if (render_.kind->storedAs) {
        return item(out, cached.bytes, error);
    }
    if (render_.output.form == OutputForm::Protobuf) {
        const std::string* raw = protobufOf(cached, error);
        if (raw == nullptr) {
            return false;
        }
        appendProtobufListItemHead(out, raw->size());
        borrowed = *raw;
        return true;
    }
    if (render_.output.form == OutputForm::Table) {
        return item(out, cached.bytes, error);
    }
    borrowed = jsonItemHead(out, cached.bytes);
    return true;
}

// A JSON list item's separator and opening; returns the stored bytes that
// follow them.
std::string_view ListEncoder::jsonItemHead(std::string& out, std::string_view stored) {
    if (!first_) {
        out += ',';
    }
    first_ = false;
    return registry::appendListItemHead(out, stored, prefix_);
}

// A stored object as a list item of a kind stored as another (converted).
void ListEncoder::appendConverted(std::string& out, std::string_view stored) {
    std::string served = registry::servedObject(*render_.kind, stored);
    if (!first_) {
        out += ',';
    }
    first_ = false;
    // Items carry no kind or apiVersion.
    json::Document doc;
    if (json::parse(served, doc) || !doc.IsObject()) {
        out += served;
        return;
    }
    doc.EraseMember("kind");
    doc.EraseMember("apiVersion");
    out += json::serialize(doc);
}

// The object's protobuf message, encoded on first use and memoized on it;
// null with `error` set when it cannot be encoded.
const std::string* ListEncoder::protobufOf(const storage::cacher::CachedObject& cached,
                                           std::string* error) const {
    if (!cached.protobufRaw) {
        json::Document doc;
        std::string raw;
        std::optional<std::string> why = json::parse(cached.bytes, doc);
        if (!why) {
            why = encodeProtobufRaw(doc, render_.kind->apiVersion(), render_.kind->kind, &raw);
        }
        if (why) {
            if (error) {
                *error = *why;
            }
            return nullptr;
        }
        cached.protobufRaw = std::make_shared<const std::string>(std::move(raw));
    }
    return cached.protobufRaw.get();
}

bool ListEncoder::item(std::string& out, std::string_view stored, std::string* error) {
    if (render_.output.form == OutputForm::Protobuf) {
        json::Document doc;
        std::string raw;
        std::optional<std::string> why = json::parse(stored, doc);
        if (!why && render_.kind->storedAs && doc.IsObject()) {
            render_.kind->storedAs->fromStorage(doc, doc.GetAllocator());
        }
        if (!why) {
            why = encodeProtobufRaw(doc, render_.kind->apiVersion(), render_.kind->kind, &raw);
        }
        if (why) {
            if (error) {
                *error = *why;
            }
            return false;
        }
        appendProtobufListItem(out, raw);
        return true;
    }
    if (render_.output.form == OutputForm::Table) {
        json::Document rows(rapidjson::kArrayType);
        addRow(rows, stored, render_, rows.GetAllocator());
        if (rows.Empty()) {
            return true;
        }
        if (!first_) {
            out += ',';
        }
        first_ = false;
        out += json::serialize(rows[0]);
        return true;
    }
    if (render_.kind->storedAs) {
        appendConverted(out, stored);
        return true;
    }
    out.append(jsonItemHead(out, stored));
    return true;
}

void ListEncoder::tail(std::string& out) const {
    if (render_.output.form == OutputForm::Protobuf) {
        out += kProtobufEnvelopeTail;
        return;
    }
    out += "]}";
}

HttpResponse listResponse(const registry::ListPage& page, const RenderOptions& r) {
    ListEncoder enc(r, page);
    if (r.output.form == OutputForm::Protobuf) {
        std::string items;
        std::string why;
        bool cached = page.objects.size() == page.items.size();
        for (size_t i = 0; i < page.items.size(); ++i) {
            bool ok = cached ? enc.item(items, *page.objects[i], &why)
                             : enc.item(items, page.items[i].value, &why);
            if (!ok) {
                return encodeFailure(why, r);
            }
        }
        enc.setItemsSize(items.size());
        std::string out;
        enc.head(out);
        out.reserve(out.size() + items.size() + kProtobufEnvelopeTail.size());
        out += items;
        enc.tail(out);
        return protobufResponse(200, std::move(out));
    }
    size_t total = 0;
    for (const storage::ObjectView& item : page.items) {
        total += item.value.size() + 1;
    }
    std::string out;
    out.reserve(total + 256);
    enc.head(out);
    for (const storage::ObjectView& item : page.items) {
        enc.item(out, item.value);
    }
    enc.tail(out);
    return jsonResponse(200, std::move(out), r.pretty);
}

}  // namespace kube::endpoints
