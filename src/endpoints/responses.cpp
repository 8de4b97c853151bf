#include "endpoints/responses.hpp"

#include "registry/encoding.hpp"

namespace kube::endpoints {

namespace json = util::json;

namespace {

server::HttpResponse jsonResponse(int code, std::string body, bool pretty) {
    if (pretty) {
        json::Document doc;
        if (!json::parse(body, doc)) {
            body = json::serializePretty(doc);
        }
    }
    return server::HttpResponse::json(code, std::move(body));
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

server::HttpResponse tableResponse(const RenderOptions& r, const json::Value& listMeta,
                                   std::span<const std::string_view> objects) {
    json::Document t(rapidjson::kObjectType);
    auto& a = t.GetAllocator();
    t.AddMember("kind", "Table", a);
    t.AddMember("apiVersion", json::stringValue(r.output.tableGroupVersion, a), a);
    t.AddMember("metadata", json::Value(listMeta, a), a);
    t.AddMember("columnDefinitions", columnDefinitions(*r.kind, a), a);
    json::Value rows(rapidjson::kArrayType);
    for (std::string_view o : objects) {
        addRow(rows, o, r, a);
    }
    t.AddMember("rows", rows, a);
    return server::HttpResponse::json(200,
                                      r.pretty ? json::serializePretty(t) : json::serialize(t));
}

}  // namespace

server::HttpResponse objectResponse(int code, std::string_view stored, const RenderOptions& r) {
    if (r.output.form == OutputForm::Table) {
        // A one-row table carries the object's resourceVersion.
        json::Document meta(rapidjson::kObjectType);
        json::Document obj;
        if (!json::parse(stored, obj)) {
            if (const json::Value* rv = json::at(obj, {"metadata", "resourceVersion"})) {
                meta.AddMember("resourceVersion", json::Value(*rv, meta.GetAllocator()),
                               meta.GetAllocator());
            }
        }
        std::string_view one[] = {stored};
        server::HttpResponse resp = tableResponse(r, meta, one);
        resp.status = code;
        return resp;
    }
    return jsonResponse(code, std::string(stored), r.pretty);
}

server::HttpResponse listResponse(const registry::ListPage& page, const RenderOptions& r) {
    if (r.output.form == OutputForm::Table) {
        json::Document meta(rapidjson::kObjectType);
        auto& a = meta.GetAllocator();
        meta.AddMember("resourceVersion", json::stringValue(std::to_string(page.revision), a), a);
        if (!page.continueToken.empty()) {
            meta.AddMember("continue", json::stringValue(page.continueToken, a), a);
        }
        if (page.remainingItemCount) {
            meta.AddMember("remainingItemCount", *page.remainingItemCount, a);
        }
        std::vector<std::string_view> objects;
        objects.reserve(page.items.size());
        for (const storage::ObjectView& item : page.items) {
            objects.push_back(item.value);
        }
        return tableResponse(r, meta, objects);
    }
    std::string prefix = registry::storedPrefix(*r.kind);
    size_t total = 0;
    for (const storage::ObjectView& item : page.items) {
        total += item.value.size() + 1;
    }
    std::string out;
    out.reserve(total + 256);
    out += "{\"kind\":";
    json::appendQuoted(out, r.kind->listKind());
    out += ",\"apiVersion\":";
    json::appendQuoted(out, r.kind->apiVersion());
    out += ",\"metadata\":{\"resourceVersion\":\"" + std::to_string(page.revision) + "\"";
    if (!page.continueToken.empty()) {
        out += ",\"continue\":";
        json::appendQuoted(out, page.continueToken);
    }
    if (page.remainingItemCount) {
        out += ",\"remainingItemCount\":" + std::to_string(*page.remainingItemCount);
    }
    out += "},\"items\":[";
    for (size_t i = 0; i < page.items.size(); i++) {
        if (i) {
            out += ',';
        }
        registry::appendListItem(out, page.items[i].value, prefix);
    }
    out += "]}";
    return jsonResponse(200, std::move(out), r.pretty);
}

}  // namespace kube::endpoints
