#include "endpoints/discovery.hpp"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>

namespace kube::endpoints {

namespace json = util::json;

namespace {

constexpr const char* kJson = "application/json";

std::string aggregatedContentType(DiscoveryForm form) {
    return std::string("application/json;g=apidiscovery.k8s.io;v=") +
           (form == DiscoveryForm::AggregatedV2 ? "v2" : "v2beta1") + ";as=APIGroupDiscoveryList";
}

std::string sha512Hex(std::string_view s) {
    unsigned char md[SHA512_DIGEST_LENGTH];
    SHA512(reinterpret_cast<const unsigned char*>(s.data()), s.size(), md);
    static constexpr char digits[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : md) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

// discovery's storageVersionHash: the first 8 bytes of sha256("<gv>/<kind>"), base64,
// of the version objects are stored at (every served version shows the same).
std::string storageVersionHash(const registry::KindInfo& k) {
    std::string in =
        k.group + "/" + (k.storageVersion.empty() ? k.version : k.storageVersion) + "/" + k.kind;
    if (k.storedAs) {
        // Stored as another group's kind: that one's ("/v1/Event" for events.k8s.io's).
        const std::string& gv = k.storedAs->apiVersion;
        in = (gv.find('/') == std::string::npos ? "/" + gv : gv) + "/" + k.kind;
    }
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(in.data()), in.size(), md);
    unsigned char out[16] = {};
    EVP_EncodeBlock(out, md, 8);
    return reinterpret_cast<char*>(out);
}

json::Value strings(const std::vector<std::string>& v, json::Allocator& a) {
    json::Value arr(rapidjson::kArrayType);
    for (const std::string& s : v) {
        arr.PushBack(json::stringValue(s, a), a);
    }
    return arr;
}

json::Value groupVersion(std::string_view group, std::string_view version, json::Allocator& a) {
    json::Value v(rapidjson::kObjectType);
    std::string gv = std::string(group) + "/" + std::string(version);
    v.AddMember("groupVersion", json::stringValue(gv, a), a);
    v.AddMember("version", json::stringValue(version, a), a);
    return v;
}

json::Value apiGroup(const registry::GroupInfo& g, json::Allocator& a) {
    json::Value out(rapidjson::kObjectType);
    out.AddMember("name", json::stringValue(g.name, a), a);
    json::Value versions(rapidjson::kArrayType);
    for (const std::string& v : g.versions) {
        versions.PushBack(groupVersion(g.name, v, a), a);
    }
    out.AddMember("versions", versions, a);
    out.AddMember("preferredVersion", groupVersion(g.name, g.versions.front(), a), a);
    return out;
}

}  // namespace

void Discovery::setRoutes(std::shared_ptr<const RouteTable> routes) {
    routes_ = std::move(routes);
    cache_.clear();
}

DiscoveryDocument Discovery::coreRoot(DiscoveryForm form, std::string_view serverAddress) {
    if (form != DiscoveryForm::Legacy) {
        std::string key = "core-" + aggregatedContentType(form);
        if (auto it = cache_.find(key); it != cache_.end()) {
            return it->second;
        }
        std::string body = aggregated(true, form);
        DiscoveryDocument doc{aggregatedContentType(form), body, "\"" + sha512Hex(body) + "\""};
        cache_.emplace(key, doc);
        return doc;
    }
    json::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    d.AddMember("kind", "APIVersions", a);
    json::Value versions(rapidjson::kArrayType);
    versions.PushBack("v1", a);
    d.AddMember("versions", versions, a);
    json::Value cidrs(rapidjson::kArrayType);
    json::Value cidr(rapidjson::kObjectType);
    cidr.AddMember("clientCIDR", "0.0.0.0/0", a);
    cidr.AddMember("serverAddress", json::stringValue(serverAddress, a), a);
    cidrs.PushBack(cidr, a);
    d.AddMember("serverAddressByClientCIDRs", cidrs, a);
    return {kJson, json::serialize(d), ""};
}

const DiscoveryDocument& Discovery::groupsRoot(DiscoveryForm form) {
    std::string key =
        form == DiscoveryForm::Legacy ? "apis" : "apis-" + aggregatedContentType(form);
    if (auto it = cache_.find(key); it != cache_.end()) {
        return it->second;
    }
    DiscoveryDocument doc;
    if (form != DiscoveryForm::Legacy) {
        doc.body = aggregated(false, form);
        doc.contentType = aggregatedContentType(form);
        doc.etag = "\"" + sha512Hex(doc.body) + "\"";
    } else {
        json::Document d(rapidjson::kObjectType);
        auto& a = d.GetAllocator();
        d.AddMember("kind", "APIGroupList", a);
        d.AddMember("apiVersion", "v1", a);
        json::Value groups(rapidjson::kArrayType);
        for (const registry::GroupInfo& g : routes_->groups()) {
            if (!g.name.empty()) {
                groups.PushBack(apiGroup(g, a), a);
            }
        }
        d.AddMember("groups", groups, a);
        doc = {kJson, json::serialize(d), ""};
    }
    return cache_.emplace(key, std::move(doc)).first->second;
}

const DiscoveryDocument* Discovery::group(std::string_view name) {
    std::string key = "group-" + std::string(name);
    if (auto it = cache_.find(key); it != cache_.end()) {
        return &it->second;
    }
    for (const registry::GroupInfo& g : routes_->groups()) {
        if (g.name == name && !name.empty()) {
            json::Document d(rapidjson::kObjectType);
            auto& a = d.GetAllocator();
            d.AddMember("kind", "APIGroup", a);
            d.AddMember("apiVersion", "v1", a);
            json::Value body = apiGroup(g, a);
            for (auto& m : body.GetObject()) {
                d.AddMember(m.name, m.value, a);
            }
            return &cache_.emplace(key, DiscoveryDocument{kJson, json::serialize(d), ""})
                        .first->second;
        }
    }
    return nullptr;
}

const DiscoveryDocument* Discovery::resources(std::string_view group, std::string_view version) {
    if (!routes_->hasGroupVersion(group, version)) {
        return nullptr;
    }
    std::string key = "resources-" + std::string(group) + "/" + std::string(version);
    if (auto it = cache_.find(key); it != cache_.end()) {
        return &it->second;
    }
    return &cache_.emplace(key, DiscoveryDocument{kJson, resourceList(group, version), ""})
                .first->second;
}

std::string Discovery::resourceList(std::string_view group, std::string_view version) const {
    json::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    d.AddMember("kind", "APIResourceList", a);
    std::string gv(version);
    if (!group.empty()) {
        d.AddMember("apiVersion", "v1", a);
        gv = std::string(group) + "/" + gv;
    }
    d.AddMember("groupVersion", json::stringValue(gv, a), a);
    json::Value resources(rapidjson::kArrayType);
    for (const KindRoutes* routes : routes_->kinds(group, version)) {
        const registry::KindInfo* k = routes->kind.get();
        json::Value r(rapidjson::kObjectType);
        r.AddMember("name", json::stringValue(k->resource, a), a);
        r.AddMember("singularName", json::stringValue(k->singular, a), a);
        r.AddMember("namespaced", k->namespaced, a);
        r.AddMember("kind", json::stringValue(k->kind, a), a);
        r.AddMember("verbs", strings(routes->resource.verbs, a), a);
        if (!k->shortNames.empty()) {
            r.AddMember("shortNames", strings(k->shortNames, a), a);
        }
        if (!k->categories.empty()) {
            r.AddMember("categories", strings(k->categories, a), a);
        }
        // Reviews and componentstatuses store nothing: no storage version.
        if (routes->resource.handlers == Handlers::Object) {
            r.AddMember("storageVersionHash", json::stringValue(storageVersionHash(*k), a), a);
        }
        resources.PushBack(r, a);
        for (const ResourceRoute& sub : routes->subresources) {
            const registry::SubresourceInfo& s = *sub.subresource;
            json::Value sr(rapidjson::kObjectType);
            sr.AddMember("name", json::stringValue(k->resource + "/" + s.name, a), a);
            sr.AddMember("singularName", "", a);
            sr.AddMember("namespaced", k->namespaced, a);
            if (!s.group.empty()) {
                sr.AddMember("group", json::stringValue(s.group, a), a);
            }
            if (!s.version.empty()) {
                sr.AddMember("version", json::stringValue(s.version, a), a);
            }
            sr.AddMember("kind", json::stringValue(s.kind.empty() ? k->kind : s.kind, a), a);
            sr.AddMember("verbs", strings(sub.verbs, a), a);
            resources.PushBack(sr, a);
        }
    }
    d.AddMember("resources", resources, a);
    return json::serialize(d);
}

std::string Discovery::aggregated(bool core, DiscoveryForm form) const {
    json::Document d(rapidjson::kObjectType);
    auto& a = d.GetAllocator();
    d.AddMember("kind", "APIGroupDiscoveryList", a);
    d.AddMember(
        "apiVersion",
        rapidjson::StringRef(form == DiscoveryForm::AggregatedV2 ? "apidiscovery.k8s.io/v2"
                                                                 : "apidiscovery.k8s.io/v2beta1"),
        a);
    d.AddMember("metadata", json::Value(rapidjson::kObjectType), a);
    json::Value items(rapidjson::kArrayType);
    for (const registry::GroupInfo& g : routes_->groups()) {
        if (g.name.empty() != core) {
            continue;
        }
        json::Value item(rapidjson::kObjectType);
        json::Value meta(rapidjson::kObjectType);
        if (!core) {
            meta.AddMember("name", json::stringValue(g.name, a), a);
        }
        meta.AddMember("creationTimestamp", json::Value(), a);
        item.AddMember("metadata", meta, a);
        json::Value versions(rapidjson::kArrayType);
        for (const std::string& v : g.versions) {
            json::Value ver(rapidjson::kObjectType);
            ver.AddMember("version", json::stringValue(v, a), a);
            json::Value resources(rapidjson::kArrayType);
            for (const KindRoutes* routes : routes_->kinds(g.name, v)) {
                const registry::KindInfo* k = routes->kind.get();
                json::Value r(rapidjson::kObjectType);
                r.AddMember("resource", json::stringValue(k->resource, a), a);
                json::Value rk(rapidjson::kObjectType);
                // the resource's own kind: group and version are implied
                rk.AddMember("group", "", a);
                rk.AddMember("version", "", a);
                rk.AddMember("kind", json::stringValue(k->kind, a), a);
                r.AddMember("responseKind", rk, a);
                r.AddMember("scope", rapidjson::StringRef(k->namespaced ? "Namespaced" : "Cluster"),
                            a);
                r.AddMember("singularResource", json::stringValue(k->singular, a), a);
                r.AddMember("verbs", strings(routes->resource.verbs, a), a);
                if (!k->shortNames.empty()) {
                    r.AddMember("shortNames", strings(k->shortNames, a), a);
                }
                if (!k->categories.empty()) {
                    r.AddMember("categories", strings(k->categories, a), a);
                }
                if (!routes->subresources.empty()) {
                    json::Value subs(rapidjson::kArrayType);
                    for (const ResourceRoute& sub : routes->subresources) {
                        const registry::SubresourceInfo& s = *sub.subresource;
                        json::Value sr(rapidjson::kObjectType);
                        sr.AddMember("subresource", json::stringValue(s.name, a), a);
                        json::Value sk(rapidjson::kObjectType);
                        sk.AddMember("group", json::stringValue(s.group, a), a);
                        sk.AddMember("version", json::stringValue(s.version, a), a);
                        sk.AddMember("kind",
                                     json::stringValue(s.kind.empty() ? k->kind : s.kind, a), a);
                        sr.AddMember("responseKind", sk, a);
                        sr.AddMember("verbs", strings(sub.verbs, a), a);
                        subs.PushBack(sr, a);
                    }
                    r.AddMember("subresources", subs, a);
                }
                resources.PushBack(r, a);
            }
            ver.AddMember("resources", resources, a);
            if (form == DiscoveryForm::AggregatedV2) {
                ver.AddMember("freshness", "Current", a);
            }
            versions.PushBack(ver, a);
        }
        item.AddMember("versions", versions, a);
        items.PushBack(item, a);
    }
    d.AddMember("items", items, a);
    return json::serialize(d);
}

}  // namespace kube::endpoints
