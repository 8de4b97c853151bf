# nginx-kube-apiserver
#
#   make            install missing Debian packages, build the module
#   make run        start nginx with conf/nginx.conf on 127.0.0.1:$(PORT) (TLS, h2);
#                   ETCD=<endpoints> stores in etcd, VAR=<folder> keeps the state there
#   make test       unit tests (t/unit) and every t/*.t with prove
#   make bench      wrk figures (bench/run)
#
# SANITIZE=1 builds everything with ASan/UBSan into build/sanitize/.

SHELL := /bin/bash
PORT ?= 6443

# Parallel by default: one job per core unless -j is given (the first build
# compiles ~150 files).
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc)
endif
SANITIZE ?=

ifeq ($(SANITIZE),1)
BUILD := build/sanitize
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD := build
SAN_FLAGS :=
endif

CXX := g++
CXXFLAGS := -std=c++20 -O2 -g -fPIC -Wall -Wextra -Werror -Isrc -I$(BUILD)/gen $(SAN_FLAGS) \
    -MMD -MP
LDLIBS = -llmdb -lcrypto -lyaml -lprotobuf -lre2 $(GRPC_LIBS) -lcmocka -lpthread
# Expanded when a recipe runs, after deps installed gRPC.
GRPC_LIBS = $(shell pkg-config --libs grpc++ 2>/dev/null || echo -lgrpc++ -lgrpc -lgpr)

# The schema: protoc turns src/apis/proto/kapi/*.proto into C++ under
# $(BUILD)/gen (never committed), compiled into the library with src/.
PROTO_DIR := src/apis/proto
PROTOS := $(sort $(wildcard $(PROTO_DIR)/kapi/*.proto))
PB_SRCS := $(PROTOS:$(PROTO_DIR)/%.proto=$(BUILD)/gen/%.pb.cc)
PB_HDRS := $(PB_SRCS:.cc=.h)
PB_OBJS := $(PB_SRCS:$(BUILD)/gen/%.cc=$(BUILD)/obj/gen/%.o)
DESC_OBJ := $(BUILD)/obj/gen/kapi_desc.o

# The etcd v3 API the etcd backend speaks (src/storage/etcd/proto), with its
# gRPC stubs from grpc_cpp_plugin; a protoc run and a stamp of its own, out of
# the schema's descriptor set.
ETCD_PROTO_DIR := src/storage/etcd/proto
ETCD_PROTOS := $(ETCD_PROTO_DIR)/mvccpb/kv.proto $(ETCD_PROTO_DIR)/etcdserverpb/rpc.proto
ETCD_PB_SRCS := $(BUILD)/gen/mvccpb/kv.pb.cc $(BUILD)/gen/etcdserverpb/rpc.pb.cc \
    $(BUILD)/gen/etcdserverpb/rpc.grpc.pb.cc
PB_SRCS += $(ETCD_PB_SRCS)
# gRPC's generated client classes under names src/ uses (KvRpc, newKvRpc...).
ETCD_RPC_HDR := $(BUILD)/gen/etcdserverpb/etcd_rpc.hpp
PB_HDRS := $(PB_SRCS:.cc=.h) $(ETCD_RPC_HDR)
PB_OBJS := $(PB_SRCS:$(BUILD)/gen/%.cc=$(BUILD)/obj/gen/%.o)

SRCS := $(shell find src -name '*.cpp' | sort)
OBJS := $(SRCS:%.cpp=$(BUILD)/obj/%.o)
LIB := $(BUILD)/libkube.a
MODULE_SRCS := $(wildcard module/*.cpp module/*.hpp)
MODULE := $(BUILD)/ngx_http_kube_apiserver_module.so
UNIT_SRCS := $(wildcard t/unit/test_*.cpp)
UNIT_BINS := $(UNIT_SRCS:t/unit/%.cpp=$(BUILD)/unit/%)
UNIT_SUPPORT := $(filter-out $(UNIT_SRCS),$(wildcard t/unit/*.cpp))

# Debian packages the build, the tests and the benchmark need (clang and
# libclang-rt-14-dev, which holds libclang_rt.fuzzer, for fuzz/; gRPC and
# etcd for the etcd backend and its tests; valgrind for the benchmark's (m)).
PACKAGES := nginx nginx-dev rapidjson-dev libssl-dev libjemalloc-dev libjemalloc2 \
    libcmocka-dev liblmdb-dev lmdb-utils libyaml-dev protobuf-compiler libprotobuf-dev libre2-dev \
    python3-kubernetes python3-protobuf python3-prometheus-client \
    libtest-base-perl libio-socket-ssl-perl wrk curl openssl \
    clang libclang-rt-14-dev libgrpc++-dev protobuf-compiler-grpc etcd-server etcd-client \
    valgrind

.PHONY: all deps run test unit prove bench clean format

all: deps $(MODULE)

deps: build/.deps-ok

build/.deps-ok: Makefile
	@missing=""; for p in $(PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -q && apt-get install -y -q $$missing; \
	fi
	@mkdir -p build && touch $@

# One protoc run writes every generated file; the stamp stands for them all.
# Besides the C++, it writes the schema as a descriptor set with its comments
# (kapi.desc), which kapi_desc.S embeds in the library for the OpenAPI
# generator (src/openapi/schema_pool.cpp).
$(BUILD)/gen/.stamp: $(PROTOS) | deps
	@rm -rf $(BUILD)/gen && mkdir -p $(BUILD)/gen
	protoc -I$(PROTO_DIR) --cpp_out=$(BUILD)/gen --descriptor_set_out=$(BUILD)/gen/kapi.desc \
	    --include_imports --include_source_info $(PROTOS)
	@printf '%s\n' '.section .rodata' '.balign 8' \
	    '.globl kube_schema_descriptor_set' '.hidden kube_schema_descriptor_set' \
	    'kube_schema_descriptor_set:' '.incbin "$(CURDIR)/$(BUILD)/gen/kapi.desc"' \
	    '.globl kube_schema_descriptor_set_end' '.hidden kube_schema_descriptor_set_end' \
	    'kube_schema_descriptor_set_end:' '.section .note.GNU-stack,"",@progbits' \
	    > $(BUILD)/gen/kapi_desc.S
	@touch $@

$(BUILD)/gen/.etcd-stamp: $(ETCD_PROTOS) $(BUILD)/gen/.stamp | deps
	protoc -I$(ETCD_PROTO_DIR) --cpp_out=$(BUILD)/gen --grpc_out=$(BUILD)/gen \
	    --plugin=protoc-gen-grpc=$$(command -v grpc_cpp_plugin) $(ETCD_PROTOS)
	@touch $@

$(filter-out $(ETCD_PB_SRCS) $(ETCD_PB_SRCS:.cc=.h) $(ETCD_RPC_HDR),$(PB_SRCS) $(PB_HDRS)) \
    $(BUILD)/gen/kapi_desc.S: $(BUILD)/gen/.stamp ;
$(ETCD_PB_SRCS) $(ETCD_PB_SRCS:.cc=.h): $(BUILD)/gen/.etcd-stamp ;
$(ETCD_RPC_HDR): $(BUILD)/gen/.etcd-stamp
	printf '%s\n' '// Generated by the Makefile: the etcd services'"'"' gRPC clients.' \
	    '#pragma once' '#include <memory>' '#include "etcdserverpb/rpc.grpc.pb.h"' \
	    'namespace etcdserverpb {' $(foreach s,Kv:KV Watch:Watch Lease:Lease,\
	    'using $(word 1,$(subst :, ,$s))Rpc = $(word 2,$(subst :, ,$s))::Stub;' \
	    'inline std::unique_ptr<$(word 1,$(subst :, ,$s))Rpc> new$(word 1,$(subst :, ,$s))Rpc(' \
	    '    const std::shared_ptr<grpc::ChannelInterface>& channel) {' \
	    '    return $(word 2,$(subst :, ,$s))::NewStub(channel);' '}') \
	    '}  // namespace etcdserverpb' > $@

# Generated headers exist before any object of src/ is compiled (the .d
# files then track which ones each object really includes).
$(OBJS): | $(PB_HDRS)

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.cc | $(PB_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(DESC_OBJ): $(BUILD)/gen/kapi_desc.S
	@mkdir -p $(dir $@)
	$(CXX) -c $< -o $@

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(LIB): $(OBJS) $(PB_OBJS) $(DESC_OBJ)
	@rm -f $@
	ar rcs $@ $^

# nginx's own configure, run once on a copy of Debian's nginx-dev tree with
# Debian's flags so the module is binary compatible with /usr/sbin/nginx.
# Re-run when the set of module sources or headers changes.
$(BUILD)/sources.list: FORCE
	@mkdir -p $(BUILD)
	@find module src -name '*.hpp' -o -name '*.cpp' -path 'module/*' | sort > $@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@

$(BUILD)/nginx-src/objs/Makefile: config $(BUILD)/sources.list | deps
	rm -rf $(BUILD)/nginx-src
	cp -a /usr/share/nginx/src $(BUILD)/nginx-src
	cd $(BUILD)/nginx-src && . ./conf_flags && \
	    KUBE_LIB=$(CURDIR)/$(LIB) KUBE_MODULE_CFLAGS="$(SAN_FLAGS)" \
	    KUBE_MODULE_LDFLAGS="$(SAN_FLAGS)" \
	    ./configure "$${NGX_CONF_FLAGS[@]}" --add-dynamic-module=$(CURDIR) > configure.log

$(MODULE): $(LIB) $(MODULE_SRCS) $(BUILD)/nginx-src/objs/Makefile
	rm -f $(BUILD)/nginx-src/objs/ngx_http_kube_apiserver_module.so
	$(MAKE) -s -C $(BUILD)/nginx-src -f objs/Makefile modules
	@# rename, never overwrite: running nginx processes have the old file mapped
	cp $(BUILD)/nginx-src/objs/ngx_http_kube_apiserver_module.so $@.tmp
	mv -f $@.tmp $@

$(BUILD)/unit/%: t/unit/%.cpp $(UNIT_SUPPORT) $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -It/unit $< $(UNIT_SUPPORT) $(LIB) $(LDLIBS) -o $@

unit: deps $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

prove: all
	KUBE_BUILD=$(CURDIR)/$(BUILD) SANITIZE=$(SANITIZE) prove -j2 t/*.t

test: all unit fuzz-ci prove

run: all
	@PORT=$(PORT) ETCD='$(ETCD)' VAR='$(VAR)' BUILD=$(CURDIR)/$(BUILD) ./conf/run.sh

bench: all $(BUILD)/watch_load $(BUILD)/list_load $(BUILD)/fanout_floor $(BUILD)/patch_scaling \
    $(BUILD)/get_load
	@BUILD=$(CURDIR)/$(BUILD) ./bench/run

# bench/run's patch case: the three patch types in-process against patch size.
$(BUILD)/patch_scaling: bench/patch_scaling.cpp $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $< $(LIB) $(LDLIBS) -o $@

# The watch load client of bench/run: libc and libstdc++ only, nothing of src/.
$(BUILD)/watch_load: bench/watch_load.cpp bench/load_common.hpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 -O2 -g -Wall -Wextra -Werror $< -o $@

# bench/run's floor under the watch fan-out: a bare epoll server, no src/.
$(BUILD)/fanout_floor: bench/fanout_floor.cpp bench/load_common.hpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 -O2 -g -Wall -Wextra -Werror $< -o $@

# The large-LIST client of bench/run: libc, libstdc++ and zlib (nginx-dev's
# zlib1g-dev), nothing of src/.
$(BUILD)/list_load: bench/list_load.cpp bench/load_common.hpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 -O2 -g -Wall -Wextra -Werror $< -lz -lpthread -o $@

# The GET client of bench/rbac_overhead.pl (TLS with a client certificate, which wrk lacks):
# libc, libstdc++ and OpenSSL, nothing of src/.
$(BUILD)/get_load: bench/get_load.cpp bench/load_common.hpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 -O2 -g -Wall -Wextra -Werror $< -lssl -lcrypto -lpthread -o $@

# ---- Fuzzing (fuzz/, README "Fuzzing") -------------------------------------
# libFuzzer targets (fuzz/*.cpp) built by Debian's clang with ASan+UBSan
# against src/ compiled by clang into $(FUZZ_BUILD) with coverage, so the
# fuzzers see the library's branches. The generated protobuf code is reused
# from $(BUILD)/obj/gen (g++ objects: libstdc++'s ABI is the same).
#   make fuzz                      each target FUZZ_SECONDS (60) from fuzz/corpus/<target>
#   make fuzz FUZZ_SECONDS=600     the benchmark form
#   make fuzz-ci                   the seeds, then FUZZ_CI_SECONDS (4) each (in make test)
# A target's seeds are copied to a scratch corpus under $(FUZZ_BUILD)/run (ci),
# so new inputs are never committed by accident; crashes land there too.
FUZZ_BUILD := build/fuzz
FUZZ_CXX := clang++
FUZZ_SECONDS ?= 60
FUZZ_CI_SECONDS ?= 4
FUZZ_JOBS ?= $(shell nproc)
# pointer-overflow stays recoverable so fuzz/ubsan.supp can silence RapidJSON's
# one known case; halt_on_error=1 still makes every other report fatal.
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
    -fsanitize-recover=pointer-overflow -fno-omit-frame-pointer
FUZZ_CXXFLAGS := -std=c++20 -O1 -gline-tables-only -fPIC -Wall -Wextra \
    -Wno-ambiguous-reversed-operator -Isrc -I$(BUILD)/gen $(FUZZ_SAN) -MMD -MP
# The part of src/ the targets link (all of util/, cel/ and registry/patch/, and
# what they and the targets call elsewhere): a fifth of the library, so the
# clang build stays short. An undefined reference when a target links means
# a source to add here.
FUZZ_LIB_SRCS := $(sort $(wildcard src/util/*.cpp src/registry/patch/*.cpp src/cel/*.cpp) \
    src/apis/meta/status.cpp src/endpoints/field_validation.cpp \
    src/endpoints/protobuf_codec.cpp src/endpoints/request_info.cpp \
    src/registry/continue_token.cpp src/registry/schema_fields.cpp src/registry/validation.cpp)
FUZZ_OBJS := $(FUZZ_LIB_SRCS:%.cpp=$(FUZZ_BUILD)/obj/%.o)
FUZZ_LIB := $(FUZZ_BUILD)/libkube.a
FUZZ_SRCS := $(sort $(wildcard fuzz/*_fuzzer.cpp))
FUZZ_TARGETS := $(FUZZ_SRCS:fuzz/%.cpp=$(FUZZ_BUILD)/%)
FUZZ_SUPPORT := $(filter-out $(FUZZ_SRCS),$(wildcard fuzz/*.cpp))
# -timeout: an input slower than 10 s is a finding; -max_len: 64 KiB.
FUZZ_OPTS := -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
FUZZ_ENV := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(CURDIR)/fuzz/ubsan.supp

.PHONY: fuzz fuzz-build fuzz-ci

$(FUZZ_OBJS): | $(PB_HDRS)

# Objects and targets are rebuilt when the flags change.
$(FUZZ_BUILD)/flags: FORCE
	@mkdir -p $(FUZZ_BUILD)
	@echo '$(FUZZ_CXX) $(FUZZ_CXXFLAGS)' > $@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@

$(FUZZ_BUILD)/obj/%.o: %.cpp $(FUZZ_BUILD)/flags
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_LIB): $(FUZZ_OBJS) $(PB_OBJS) $(DESC_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/%_fuzzer: fuzz/%_fuzzer.cpp $(FUZZ_SUPPORT) $(wildcard fuzz/*.hpp) $(FUZZ_LIB) \
    $(FUZZ_BUILD)/flags
	$(FUZZ_CXX) $(FUZZ_CXXFLAGS) -fsanitize=fuzzer -Ifuzz $< $(FUZZ_SUPPORT) $(FUZZ_LIB) \
	    $(LDLIBS) -o $@

fuzz-build: deps $(FUZZ_TARGETS)

# One target's run: $(1) the target, $(2) its scratch folder, $(3) seconds,
# $(4) more options (make test's run has a fixed -seed: the same inputs each time).
# The seeds are copied there first (libFuzzer adds what it finds to the
# folder it is given), with the inputs of fixed findings (fuzz/regressions/);
# it runs them all, then fuzzes. Prints one line.
define fuzz_run
n=$$(basename $(1) _fuzzer); run=$(2)/$$n; \
rm -rf $$run && mkdir -p $$run/corpus $$run/artifacts && cp fuzz/corpus/$$n/* $$run/corpus/ && \
    { [ ! -d fuzz/regressions/$$n ] || cp fuzz/regressions/$$n/* $$run/corpus/; }; \
if $(FUZZ_ENV) $(1) $(FUZZ_OPTS) $(4) -max_total_time=$(3) -artifact_prefix=$$run/artifacts/ \
        $$run/corpus >$$run/log 2>&1; then \
    echo "fuzz $$n: ok, $$(awk '/stat::number_of_executed_units/ {print $$2}' $$run/log) runs" \
        "in $(3) s, $$(awk '/stat::peak_rss_mb/ {print $$2}' $$run/log) MB"; \
else \
    grep -E -A40 'ERROR|runtime error|deadly signal|Timeout|out-of-memory' $$run/log | head -60; \
    echo "fuzz $$n: FAILED, input saved in $$run/artifacts, log $$run/log"; failed="$$failed $$n"; \
fi
endef

fuzz: fuzz-build
	@failed=""; for t in $(FUZZ_TARGETS); do $(call fuzz_run,$$t,$(FUZZ_BUILD)/run,$(FUZZ_SECONDS)); \
	done; [ -z "$$failed" ] || { echo "fuzz failed:$$failed"; exit 1; }

# make test's brief run: built in parallel even from a serial make.
fuzz-ci: deps
	@$(MAKE) -s -j$(FUZZ_JOBS) fuzz-build
	@failed=""; for t in $(FUZZ_TARGETS); do \
	    $(call fuzz_run,$$t,$(FUZZ_BUILD)/ci,$(FUZZ_CI_SECONDS),-seed=1); \
	done; [ -z "$$failed" ] || { echo "fuzz failed:$$failed"; exit 1; }

-include $(FUZZ_OBJS:.o=.d)
# ---- end of fuzzing ---------------------------------------------------------

format:
	clang-format -i $$(find src module t/unit -name '*.cpp' -o -name '*.hpp')

clean:
	rm -rf build

FORCE:

-include $(OBJS:.o=.d) $(PB_OBJS:.o=.d)
