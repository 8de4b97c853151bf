# Directives: invalid arguments fail nginx -t with a message naming the
# directive, and the module reports at start whether jemalloc is the heap.
use lib 't/lib';
use Test::Kube;
use Cwd qw(abs_path);

$ENV{TEST_NGINX_MODULE} = abs_path($ENV{KUBE_BUILD} || 'build')
    . '/ngx_http_kube_apiserver_module.so';

my $heap = $ENV{SANITIZE} ? 'jemalloc is not active' : qr/jemalloc \S+ is the heap/;

add_block_preprocessor(sub {
    my $block = shift;
    if ($block->name =~ /jemalloc/) {
        $block->set_value(error_log => [$heap]);
    }
});

run_tests();

__DATA__

=== TEST 1: the module logs at start that jemalloc is the heap
--- config
    location / {
        kube_api;
        kube_anonymous_auth on;
    }
--- request
GET /healthz
--- response_body: ok
--- no_error_log
[error]



=== TEST 2: kube_storage accepts only lmdb:<dir> and etcd:<urls>
--- http_config
    kube_storage redis:127.0.0.1:6379;
--- must_die
--- error_log
invalid storage "redis:127.0.0.1:6379", expected "lmdb:<dir>" or "etcd:<url>[,<url>...]" in



=== TEST 3: kube_storage rejects an unknown parameter
--- http_config
    kube_storage lmdb:$TEST_NGINX_SERVER_ROOT/data frobnicate=1;
--- must_die
--- error_log
invalid parameter "frobnicate=1"



=== TEST 4: kube_storage rejects a bad map size
--- http_config
    kube_storage lmdb:$TEST_NGINX_SERVER_ROOT/data map_size=lots;
--- must_die
--- error_log
invalid parameter "map_size=lots"



=== TEST 5: kube_authorization_mode names a known mode
--- config
    location / {
        kube_api;
        kube_authorization_mode RBAC-ish;
    }
--- must_die
--- error_log
unknown authorization mode "RBAC-ish", it must be "AlwaysAllow", "AlwaysDeny", "ABAC" or "RBAC" in "kube_authorization_mode" directive



=== TEST 6: kube_api takes no arguments
--- config
    location / {
        kube_api on;
    }
--- must_die
--- error_log
invalid number of arguments in "kube_api" directive



=== TEST 7: kube_api needs kube_storage
--- no_kube
--- main_config
    load_module $TEST_NGINX_MODULE;
--- config
    location / {
        kube_api;
    }
--- must_die
--- error_log
"kube_api" requires "kube_storage" in the http block



=== TEST 8: kube_anonymous_auth is a flag
--- config
    location / {
        kube_api;
        kube_anonymous_auth maybe;
    }
--- must_die
--- error_log
invalid value "maybe" in "kube_anonymous_auth" directive, it must be "on" or "off"



=== TEST 9: kube_max_request_body_size takes a size
--- config
    location / {
        kube_api;
        kube_max_request_body_size three;
    }
--- must_die
--- error_log
"kube_max_request_body_size" directive invalid value



=== TEST 10: kube_thread_pool must name a thread pool
--- http_config
    kube_thread_pool nosuchpool;
--- must_die
--- error_log
unknown thread pool "nosuchpool"



=== TEST 11: kube_storage takes map_size in gigabytes and max_readers
--- http_config
    kube_storage lmdb:$TEST_NGINX_SERVER_ROOT/data map_size=8g max_readers=512;
--- config
    location / {
        kube_api;
        kube_anonymous_auth on;
    }
--- request
GET /api/v1/namespaces/default
--- response_body_json
{"kind": "Namespace"}
--- no_error_log
[error]



=== TEST 12: kube_stream_max_buffered takes a size
--- config
    location / {
        kube_api;
        kube_stream_max_buffered lots;
    }
--- must_die
--- error_log
"kube_stream_max_buffered" directive invalid value



=== TEST 13: kube_watch_cache is a flag
--- http_config
    kube_watch_cache sometimes;
--- must_die
--- error_log
invalid value "sometimes" in "kube_watch_cache" directive, it must be "on" or "off"



=== TEST 14: kube_watch_cache belongs to the http block
--- config
    location / {
        kube_api;
        kube_watch_cache off;
    }
--- must_die
--- error_log
"kube_watch_cache" directive is not allowed here



=== TEST 15: kube_compaction_interval takes a time
--- http_config
    kube_compaction_interval often;
--- must_die
--- error_log
"kube_compaction_interval" directive invalid value



=== TEST 16: kube_min_request_timeout takes a time
--- http_config
    kube_min_request_timeout forever;
--- must_die
--- error_log
"kube_min_request_timeout" directive invalid value



=== TEST 17: kube_min_request_timeout must be greater than zero
--- http_config
    kube_min_request_timeout 0;
--- must_die
--- error_log
"kube_min_request_timeout" directive must be greater than 0



=== TEST 18: the watch and stream directives accept good values
--- http_config
    kube_watch_cache off;
    kube_compaction_interval 0;
    kube_min_request_timeout 60s;
--- config
    location / {
        kube_api;
        kube_anonymous_auth on;
        kube_stream_max_buffered 64k;
    }
--- request
GET /api/v1/namespaces/default/configmaps
--- response_body_json
{"kind": "ConfigMapList"}
--- no_error_log
[error]



=== TEST 19: kube_request_body_timeout takes a time
--- http_config
    kube_request_body_timeout slowly;
--- must_die
--- error_log
"kube_request_body_timeout" directive invalid value



=== TEST 20: kube_status takes no arguments
--- config
    location = /.kube-status {
        kube_status on;
    }
    location / {
        kube_api;
    }
--- must_die
--- error_log
invalid number of arguments in "kube_status" directive



=== TEST 21: kube_request_body_timeout and kube_status accept good values
--- config
    kube_request_body_timeout 10s;
    error_page 400 /.kube-status;
    location = /.kube-status {
        internal;
        kube_status;
    }
    location / {
        kube_api;
        kube_anonymous_auth on;
        kube_request_body_timeout 1m;
    }
--- request
GET /api/v1/namespaces/default/configmaps
--- response_body_json
{"kind": "ConfigMapList"}
--- no_error_log
[error]



=== TEST 22: kube_service_cluster_ip_range takes an IPv4 CIDR
--- http_config
    kube_service_cluster_ip_range 10.96.0.0;
--- must_die
--- error_log
invalid IPv4 CIDR "10.96.0.0" in



=== TEST 23: kube_service_cluster_ip_range is at most a /12
--- http_config
    kube_service_cluster_ip_range 10.0.0.0/8;
--- must_die
--- error_log
"10.0.0.0/8" is too large; for 32-bit addresses, the mask must be >= 12 in



=== TEST 24: kube_service_cluster_ip_range holds an address for a service
--- http_config
    kube_service_cluster_ip_range 10.96.0.0/31;
--- must_die
--- error_log
"10.96.0.0/31" holds no address for a service in



=== TEST 25: kube_service_node_port_range is first-last within 1-65535
--- http_config
    kube_service_node_port_range 30000-70000;
--- must_die
--- error_log
invalid port range "30000-70000" in



=== TEST 26: kube_advertise_address is an IPv4 address other than 0.0.0.0
--- http_config
    kube_advertise_address 0.0.0.0;
--- must_die
--- error_log
invalid address "0.0.0.0" in



=== TEST 27: the service ranges and the advertised address accept good values
--- http_config
    kube_service_cluster_ip_range 10.96.0.0/12;
    kube_service_node_port_range 30000+100;
    kube_advertise_address 192.0.2.7;
--- config
    location / {
        kube_api;
        kube_anonymous_auth on;
    }
--- request
POST /api/v1/namespaces/default/services
{"metadata":{"name":"np"},"spec":{"type":"NodePort","ports":[{"port":80}]}}
--- more_headers
Content-Type: application/json
--- error_code: 201
--- response_body_like: (?=.*"clusterIP":"10\.(9[6-9]|1[01][0-9])\.)(?=.*"nodePort":300[0-9][0-9]\b)
--- no_error_log
[error]
